import {dirname, relative, resolve} from 'node:path'
import {answerDown} from '../../nested/answer-down.js'
import {parseNestedResumeState} from '../../nested/nested-resume-state.js'
import type {RegisterCommand} from '../command-result.js'
import {exitCodes} from '../../exit-codes.js'
import {PlanStore} from '../../store/plan-store.js'
import {PlanError} from '../../plan/plan-error.js'
import {readAnswers} from '../../protocol/read-answers.js'
import {resolveAnswer} from '../../protocol/resolve-answer.js'
import {setAnswer} from '../../protocol/set-answer.js'
import {recordAnswer} from '../../protocol/answer-log.js'
import {liveRunOf} from '../../store/live-run-of.js'
import {openQuestionsTitle} from '../../protocol/upsert-open-question.js'
import {conflictDiagnostics} from '../../plan/conflict-diagnostics.js'
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
      if (answer === '') {
        io.stderr('mdplan answer: the answer is empty\n')
        return done(exitCodes.invalid)
      }
      // A merge's conflict markers: the answer would land in one side's text, or between the markers.
      const conflicted = conflictDiagnostics(store.plan)
      if (conflicted.length > 0) {
        for (const diagnostic of conflicted) io.stderr(formatDiagnostic({...diagnostic, file: planArg}) + '\n')
        io.stderr(`mdplan answer: nothing was written; resolve the conflict, then answer again.\n`)
        return done(exitCodes.invalid)
      }
      const entries = readAnswers(store.plan)
      const entry = entries.find((candidate) => candidate.agent === agent)
      if (!entry) {
        const known = store.plan.agents.some((candidate) => candidate.id === agent)
        const open = entries.map((candidate) => candidate.agent)
        const why = known ? `agent ${agent} has no open question in ${planArg}` : `${planArg} has no agent ${agent}`
        const hint = open.length > 0 ? ` (open questions: ${open.join(', ')})` : ` (it has no ## ${openQuestionsTitle})`
        io.stderr(`mdplan answer: ${why}${hint}\n`)
        return done(exitCodes.invalid)
      }
      const vanished = new Error('vanished')
      try {
        await store.editSection(openQuestionsTitle, (section, plan) => {
          const text = section ? plan.text.slice(section.section.start.offset, section.section.end.offset) : undefined
          const next = text === undefined ? undefined : setAnswer(text, agent, answer)
          // The entry vanished between our read and this write (someone else edited): abandon the write.
          if (next === undefined) throw vanished
          return next
        })
      } catch (error) {
        if (error === vanished) {
          io.stderr(`mdplan answer: the question of ${agent} disappeared from ${planArg} while writing; nothing written\n`)
          return done(exitCodes.invalid)
        }
        io.stderr(`mdplan answer: cannot write ${planArg}: ${error instanceof Error ? error.message : String(error)}\n`)
        return done(error instanceof PlanError ? exitCodes.invalid : exitCodes.failed)
      }
      // Kept beside the plan too: an older editor buffer saved over the answer does not lose it (restoreAnswers).
      recordAnswer(file, entry, answer)
      // A question that came up from a child plan: the answer flows down to the child agent that asked.
      const nested = parseNestedResumeState(entry.resumeState)
      let down: string[] = []
      if (nested) {
        try {
          down = await answerDown(resolve(dirname(file), nested.plan), nested.agent, resolveAnswer(answer, entry.options))
        } catch (error) {
          io.stderr(`mdplan answer: answered in ${planArg}, but not in its child plan ${nested.plan}: ${error instanceof Error ? error.message : String(error)}; the next run passes the answer down\n`)
        }
      }
      const before = entry.answer === undefined ? '' : ` (replacing "${entry.answer}")`
      const also = down.length > 0 ? ` Also recorded in ${down.map((path) => relative(io.cwd, path)).join(', ')}.` : ''
      // A run going on picks the answer up as it does any save; otherwise the next run does.
      const live = liveRunOf(file)
      const next = live === undefined ? `The next \`mdplan run ${shellWord(planArg)}\` resumes ${agent} with it.` : `The run going on (pid ${live}) resumes ${agent} with it once it reads the file.`
      io.stdout(`${agent}: answered "${resolveAnswer(answer, entry.options)}"${before}.${also} ${next}\n`)
      done(exitCodes.ok)
    })
}
