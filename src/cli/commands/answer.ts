import {relative, resolve} from 'node:path'
import {answerQuestion, type AnswerOutcome} from '../../nested/answer-question.js'
import type {RegisterCommand} from '../command-result.js'
import {exitCodes} from '../../exit-codes.js'
import {PlanStore} from '../../store/plan-store.js'
import {PlanError} from '../../plan/plan-error.js'
import {liveRunOf} from '../../store/live-run-of.js'
import {openQuestionsTitle} from '../../protocol/upsert-open-question.js'
import {formatDiagnostic} from '../format-diagnostic.js'
import {shellWord} from '../../util/shell-word.js'

/**
 * `mdplan answer PLAN AGENT "Option 1"`: the same as writing after
 * `**answer**:` by hand. The next run resumes the agent's session with its
 * resume state and the answer. No run lock: a running `mdplan run` treats the
 * write like any hand edit and picks it up.
 */
export const registerAnswer: RegisterCommand = (program, io, done) => {
  program
    .command('answer')
    .description("Answer an agent's open question; the next run resumes that agent with the answer")
    .argument('<plan>', 'the plan file (Markdown)')
    .argument('<agent>', 'the ID of the agent that asked')
    .argument('<answer...>', 'the answer, e.g. "Option 1" or free text')
    .addHelpText('after', '\nExit codes: 0 written; 2 no such plan, or the agent has no open question.\n')
    .action(async (planArg: string, agent: string, words: string[]) => {
      const answer = words.join(' ').trim()
      const file = resolve(io.cwd, planArg)
      let store: PlanStore
      try {
        store = await PlanStore.open(file)
      } catch (error) {
        io.stderr(`mdplan answer: cannot read ${planArg}: ${error instanceof Error ? error.message : String(error)}\n`)
        return done(exitCodes.invalid)
      }
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
