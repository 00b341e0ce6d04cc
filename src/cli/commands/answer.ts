import {relative, resolve} from 'node:path'
import {answerQuestion, type AnswerOutcome} from '../../nested/answer-question.js'
import type {RegisterCommand} from '../command-result.js'
import {exitCodes} from '../../exit-codes.js'
import {PlanError} from '../../plan/plan-error.js'
import {liveRunOf} from '../../store/live-run-of.js'
import {openQuestionsTitle} from '../../protocol/upsert-open-question.js'
import {formatDiagnostic} from '../format-diagnostic.js'
import {shellWord} from '../../util/shell-word.js'
import {answerBudget} from '../answer-budget.js'
import {openAnswerStore} from '../open-answer-store.js'
import type {Io} from '../io.js'

/**
 * `mdplan answer PLAN AGENT "Option 1"`: the same as writing after
 * `**answer**:` by hand. The next run resumes the agent's session with its
 * resume state and the answer. No run lock: a running `mdplan run` treats the
 * write like any hand edit and picks it up.
 */
export const registerAnswer: RegisterCommand = (program, io, done) => {
  program
    .command('answer')
    .description("Answer an agent's open question (the next run resumes that agent with the answer), or the plan's budget question (--budget)")
    .argument('<plan>', 'the plan file (Markdown)')
    .argument('[agent]', 'the ID of the agent that asked')
    .argument('[answer...]', 'the answer, e.g. "Option 1" or free text')
    .option('--budget <budget>', "set the front matter's `budget` instead (30M is tokens; usd=60; tokens=30M,usd=60): the next run goes on where the budget stopped the last")
    .addHelpText('after', '\nExit codes: 0 written; 2 no such plan, the agent has no open question, or a budget that reads as none.\n')
    .action(async (planArg: string, agent: string | undefined, words: string[], options: {budget?: string}) => {
      if (options.budget !== undefined || agent === undefined || words.length === 0) return done(await budgetOrUsage(planArg, agent, options.budget, io))
      const answer = words.join(' ').trim()
      const file = resolve(io.cwd, planArg)
      const store = await openAnswerStore(planArg, io)
      if (!store) return done(exitCodes.invalid)
      let outcome: AnswerOutcome
      try {
        outcome = await answerQuestion(store, agent, answer)
      } catch (error) {
        io.stderr(`mdplan answer: cannot write ${planArg}: ${error instanceof Error ? error.message : String(error)}\n`)
        return done(error instanceof PlanError ? exitCodes.invalid : exitCodes.failed)
      } finally {
        store.close()
      }
      if (outcome.kind !== 'answered') {
        io.stderr(notAnswered(outcome, planArg, agent))
        return done(exitCodes.invalid)
      }
      const {entry, down} = outcome
      if (outcome.downError) io.stderr(`mdplan answer: answered in ${planArg}, but not in its child plan ${outcome.downError}; the next run passes the answer down\n`)
      const before = entry.answer === undefined ? '' : ` (replacing "${entry.answer}")`
      const also = down.length > 0 ? ` Also recorded in ${down.map((path) => relative(io.cwd, path)).join(', ')}.` : ''
      // A run going on picks the answer up as it does any save; otherwise the next run does.
      const live = liveRunOf(file)
      const next = live === undefined ? `The next \`mdplan run ${shellWord(planArg)}\` resumes ${agent} with it.` : `The run going on (pid ${live}) resumes ${agent} with it once it reads the file.`
      io.stdout(`${agent}: answered "${outcome.text}"${before}.${also} ${next}\n`)
      done(exitCodes.ok)
    })
}

/** `--budget` alone, or a usage line for what is missing. */
async function budgetOrUsage(planArg: string, agent: string | undefined, budget: string | undefined, io: Io): Promise<number> {
  if (budget !== undefined && agent === undefined) return answerBudget(planArg, budget, io)
  io.stderr(
    budget !== undefined
      ? 'mdplan answer: give either an answer (mdplan answer PLAN AGENT "Option 1") or --budget (mdplan answer PLAN --budget 30M), not both\n'
      : 'mdplan answer: missing the answer: mdplan answer PLAN AGENT "Option 1" (or mdplan answer PLAN --budget 30M)\n'
  )
  return exitCodes.invalid
}

/** Why nothing was written, as `mdplan answer` says it. */
function notAnswered(outcome: Exclude<AnswerOutcome, {kind: 'answered'}>, planArg: string, agent: string): string {
  switch (outcome.kind) {
    case 'empty':
      return 'mdplan answer: the answer is empty\n'
    case 'conflicted':
      return outcome.diagnostics.map((diagnostic) => formatDiagnostic({...diagnostic, file: planArg}) + '\n').join('') + 'mdplan answer: nothing was written; resolve the conflict, then answer again.\n'
    case 'vanished':
      return `mdplan answer: the question of ${agent} disappeared from ${planArg} while writing; nothing written\n`
    case 'no-question': {
      const why = outcome.known ? `agent ${agent} has no open question in ${planArg}` : `${planArg} has no agent ${agent}`
      const hint = outcome.open.length > 0 ? ` (open questions: ${outcome.open.join(', ')})` : ` (it has no ## ${openQuestionsTitle})`
      return `mdplan answer: ${why}${hint}\n`
    }
  }
}
