import {dirname, resolve} from 'node:path'
import {PlanStore} from '../store/plan-store.js'
import {readAnswers, type OpenQuestion} from '../protocol/read-answers.js'
import {resolveAnswer} from '../protocol/resolve-answer.js'
import {setAnswer} from '../protocol/set-answer.js'
import {recordAnswer} from '../protocol/answer-log.js'
import {openQuestionsTitle} from '../protocol/upsert-open-question.js'
import {conflictDiagnostics} from '../plan/conflict-diagnostics.js'
import type {Diagnostic} from '../plan/types.js'
import {answerDown} from './answer-down.js'
import {parseNestedResumeState} from './nested-resume-state.js'

/** What answering did: written (with the entry as it was, and the child plans also written), or why not. */
export type AnswerOutcome =
  | {kind: 'answered'; entry: OpenQuestion; text: string; down: string[]; downError?: string}
  | {kind: 'empty'}
  | {kind: 'conflicted'; diagnostics: Diagnostic[]}
  | {kind: 'no-question'; known: boolean; open: string[]}
  | {kind: 'vanished'}

/**
 * Write `answer` after `**answer**:` in the open question of `agent` in the plan `store` holds, as a person
 * would by hand: the one path of `mdplan answer` and of the page of `mdplan serve`. Kept beside the plan too
 * (an older editor buffer saved over it does not lose it), and passed down to the child plan that asked.
 * A failed write (PlanError, I/O) is thrown; everything else is an outcome.
 */
export async function answerQuestion(store: PlanStore, agent: string, answer: string): Promise<AnswerOutcome> {
  if (answer.trim() === '') return {kind: 'empty'}
  // A merge's conflict markers: the answer would land in one side's text, or between the markers.
  const conflicted = conflictDiagnostics(store.plan)
  if (conflicted.length > 0) return {kind: 'conflicted', diagnostics: conflicted}
  const entries = readAnswers(store.plan)
  const entry = entries.find((candidate) => candidate.agent === agent)
  if (!entry) return {kind: 'no-question', known: store.plan.agents.some((candidate) => candidate.id === agent), open: entries.map((candidate) => candidate.agent)}
  const vanished = new Error('vanished')
  try {
    await store.editSection(openQuestionsTitle, (section, plan) => {
      const text = section ? plan.text.slice(section.section.start.offset, section.section.end.offset) : undefined
      const next = text === undefined ? undefined : setAnswer(text, agent, answer.trim())
      // The entry vanished between our read and this write (someone else edited): abandon the write.
      if (next === undefined) throw vanished
      return next
    })
  } catch (error) {
    if (error === vanished) return {kind: 'vanished'}
    throw error
  }
  recordAnswer(store.file, entry, answer.trim())
  const text = resolveAnswer(answer.trim(), entry.options)
  const nested = parseNestedResumeState(entry.resumeState)
  if (!nested) return {kind: 'answered', entry, text, down: []}
  try {
    return {kind: 'answered', entry, text, down: await answerDown(resolve(dirname(store.file), nested.plan), nested.agent, text)}
  } catch (error) {
    return {kind: 'answered', entry, text, down: [], downError: `${nested.plan}: ${error instanceof Error ? error.message : String(error)}`}
  }
}
