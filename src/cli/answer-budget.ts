import {exitCodes} from '../exit-codes.js'
import type {Io} from './io.js'
import {openAnswerStore} from './open-answer-store.js'
import {PlanError} from '../plan/plan-error.js'
import {parsePlan} from '../plan/parse-plan.js'
import {readBudget} from '../plan/read-budget.js'
import {formatTokenCount} from '../util/format-token-count.js'
import type {Budget} from '../plan/types.js'
import {setFrontMatterBudget} from '../store/set-front-matter-budget.js'
import {liveRunOf} from '../store/live-run-of.js'
import {shellWord} from '../util/shell-word.js'
import {formatDiagnostic} from './format-diagnostic.js'

/**
 * `mdplan answer PLAN --budget 30M`: the plan's budget question answered. The front matter's `budget` gets
 * the dimensions given (`30M` is tokens; `usd=60`; `tokens=30M,usd=60`), through the store, changing only
 * those bytes; the next run goes on where the budget stopped the last. Resolves to the exit code.
 */
export async function answerBudget(planArg: string, text: string, io: Io): Promise<number> {
  const read = readBudget(text)
  if ('problem' in read) {
    io.stderr(`mdplan answer: --budget must be ${read.problem.replace('`{tokens: 20M, usd: 50}`', '`tokens=30M,usd=60`')}; got ${JSON.stringify(text)}\n`)
    return exitCodes.invalid
  }
  const store = await openAnswerStore(planArg, io)
  if (!store) return exitCodes.invalid
  let before: Budget | undefined
  let after: Budget | undefined
  try {
    await store.editText((plan) => {
      const broken = plan.messages.filter((d) => d.severity === 'error' && /front-matter|setting/.test(d.rule) && !/budget/.test(d.reason))
      if (broken.length > 0) throw new PlanError(broken)
      before = plan.settings.budget
      const edit = setFrontMatterBudget(plan, read.budget)
      // The file must read back as the budget asked for, or nothing is written.
      after = parsePlan(edit.text, plan.file).settings.budget
      const wanted = {...before, ...read.budget}
      if (after?.tokens !== wanted.tokens || after?.usd !== wanted.usd) throw new Error(`the front matter would not read back as that budget; set \`budget:\` in ${planArg} by hand`)
      return edit
    })
  } catch (error) {
    if (error instanceof PlanError) for (const diagnostic of error.diagnostics) io.stderr(formatDiagnostic({...diagnostic, file: planArg}) + '\n')
    else io.stderr(`mdplan answer: cannot write ${planArg}: ${error instanceof Error ? error.message : String(error)}\n`)
    io.stderr('mdplan answer: nothing was written.\n')
    return error instanceof PlanError ? exitCodes.invalid : exitCodes.failed
  } finally {
    store.close()
  }
  const next = liveRunOf(store.file) === undefined ? `the next \`mdplan run ${shellWord(planArg)}\` goes on with it` : 'the run going on keeps the budget it started with: run again after it ends'
  io.stdout(`${planArg}: budget ${shown(after)} (was ${shown(before)}); ${next}.\n`)
  return exitCodes.ok
}

/** `30M tokens, $60`. */
function shown(budget: Budget | undefined): string {
  if (budget === undefined) return 'none'
  return [budget.tokens !== undefined ? `${formatTokenCount(budget.tokens)} tokens` : undefined, budget.usd !== undefined ? `$${budget.usd}` : undefined].filter(Boolean).join(', ')
}
