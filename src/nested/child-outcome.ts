import {relative, dirname} from 'node:path'
import {loadPlan} from '../plan/load-plan.js'
import {getNote, attemptsInNotes} from '../plan/notes.js'
import {readAnswers} from '../protocol/read-answers.js'
import type {RunResult} from '../runners/runner.js'
import {tableStateFromPlan} from '../store/table-state.js'
import {renderNestedResumeState} from './nested-resume-state.js'

/**
 * What a child plan's run means for its parent agent, read from the child's
 * file once its `mdplan run` ended with exit 1: a child agent that asked a
 * question makes the parent agent ask it too (question, context and options
 * unchanged, its Resume State wrapped with the child plan and agent); a
 * child agent that failed for good fails the parent agent, naming it.
 */
export async function childOutcome(input: {childFile: string; parentFile: string; agentId: string}): Promise<Pick<RunResult, 'ok' | 'finalText' | 'reason'>> {
  const plan = await loadPlan(input.childFile)
  const table = tableStateFromPlan(plan)
  const where = relative(dirname(input.parentFile), input.childFile) || input.childFile
  const asking = plan.agents.find((agent) => table.rows.get(agent.id)?.status === 'needs_input')
  if (asking) {
    const entry = readAnswers(plan).find((candidate) => candidate.agent === asking.id)
    const question = entry?.question ?? getNote(table.rows.get(asking.id)!.notes, 'question') ?? 'a child agent asked a question'
    const lines = ['RESULT: QUESTION', `Question: ${question}`]
    if (entry?.context) lines.push('Context:', ...entry.context.split('\n').map((line) => `    ${line}`))
    lines.push('Resume State:', '```', renderNestedResumeState({plan: where, agent: asking.id, state: entry?.resumeState ?? ''}), '```')
    if (entry && entry.options.length > 0) lines.push('Options:', ...entry.options.map((option, i) => `${i + 1}. ${option}`))
    return {ok: false, finalText: lines.join('\n'), reason: `child ${where}: ${asking.id} asked a question`}
  }
  const failed = plan.agents.find((agent) => table.rows.get(agent.id)?.status === 'failed')
  if (failed) {
    const last = attemptsInNotes(table.rows.get(failed.id)!.notes).at(-1)
    return {ok: false, finalText: '', reason: `child ${where}: ${failed.id} failed${last ? ` (attempt ${last.attempt}: ${last.reason})` : ''}`}
  }
  // A review gate is the child plan's person's to pass: in its own file, then the parent agent is run again.
  const held = plan.agents.filter((agent) => table.rows.get(agent.id)?.status === 'awaiting_review').map((agent) => agent.id)
  if (held.length > 0) return {ok: false, finalText: '', reason: `child ${where}: ${held.join(', ')} ${held.length === 1 ? 'awaits' : 'await'} review (mdplan review ${where} ${held[0]} --approve)`}
  for (const key of ['build', 'integration'] as const) {
    if (/^fail/.test(table.meta[key] ?? '')) return {ok: false, finalText: '', reason: `child ${where}: ${key} ${table.meta[key]}`}
  }
  const pending = plan.agents.filter((agent) => table.rows.get(agent.id)?.status !== 'completed').map((agent) => agent.id)
  return {ok: false, finalText: '', reason: `child ${where}: not completed (${pending.join(', ') || 'see its log'})`}
}
