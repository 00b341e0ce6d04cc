import {PlanStore} from '../store/plan-store.js'
import {rowEdit, type RowEdit} from './row-edit.js'

export type EditOutcome = {kind: 'written'; status: string} | {kind: 'unknown-agent'} | {kind: 'not-applicable'; status: string}

/**
 * Make the hand edit `edit` in the row of `agent`, through the store (merged cell by cell with any save or run
 * write, atomic). Its clock is pinned to the file's own `Last updated:`, so the bytes are those of the same edit
 * made in an editor; a live run takes it as it takes any hand edit.
 */
export async function applyRowEdit(file: string, agent: string, edit: RowEdit): Promise<EditOutcome> {
  let stamp: Date | undefined
  const store = await PlanStore.open(file, {now: () => stamp ?? new Date()})
  try {
    const state = store.state
    const row = state.rows.get(agent)
    if (!row || !store.plan.agents.some((candidate) => candidate.id === agent)) return {kind: 'unknown-agent'}
    const next = rowEdit(row, edit)
    if (!next) return {kind: 'not-applicable', status: row.held ?? row.status}
    const given = state.meta.lastUpdated ? new Date(state.meta.lastUpdated) : undefined
    if (given && !Number.isNaN(given.getTime())) stamp = given
    state.rows.set(agent, next)
    await store.write(state, {running: new Set()})
    return {kind: 'written', status: next.status}
  } finally {
    store.close()
  }
}
