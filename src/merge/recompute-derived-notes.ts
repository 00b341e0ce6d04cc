import {attemptsInNotes, getNote, setNote} from '../plan/notes.js'
import type {Agent, Status} from '../plan/types.js'
import {assessAgents} from '../schedule/assess-agents.js'
import {blockedNote} from '../schedule/blocked-note.js'
import type {TableState} from '../store/table-state.js'

/**
 * The notes that describe other rows (`blocked by: B (failed)`), recomputed
 * for the merged table the way a run's scheduling pass writes them: B failed
 * on one side and completed on the other no longer blocks E. A merge has no
 * running agents, answers or files to look at, so only what the table says
 * counts; the next run corrects the rest. Changes `state` in place. Pure.
 */
export function recomputeDerivedNotes(state: TableState, agents: readonly Agent[], maxAttempts: number): void {
  const status = new Map<string, Status>(agents.map((agent) => [agent.id, state.rows.get(agent.id)?.status ?? 'pending']))
  const attemptsUsed = new Map(agents.filter((agent) => status.get(agent.id) === 'failed').map((agent) => [agent.id, Math.max(0, ...attemptsInNotes(state.rows.get(agent.id)!.notes).map((a) => a.attempt))]))
  const assessments = assessAgents({agents, status, running: new Set(), attemptsUsed, attemptLimit: () => maxAttempts, answered: new Set(), filesCreated: new Set()})
  for (const agent of agents) {
    const row = state.rows.get(agent.id)
    if (!row || row.status !== 'pending') continue
    const value = blockedNote(assessments.get(agent.id))
    if (getNote(row.notes, 'blocked by') !== value) state.rows.set(agent.id, {...row, notes: setNote(row.notes, 'blocked by', value)})
  }
}
