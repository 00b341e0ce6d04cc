import {PlanStore} from './plan-store.js'
import type {RowState} from './table-state.js'

export type RowEditOutcome = {kind: 'written'; row: RowState} | {kind: 'unknown-agent'} | {kind: 'not-applicable'; status: string}

/**
 * Make a person's hand edit of one agent's row (`change` returns the new row, or undefined when the edit does
 * not apply), through the store: merged cell by cell with any save or run write, atomic. Its clock is pinned
 * to the file's own `Last updated:`, so the bytes are those of the same edit made in an editor; a live run
 * takes it as it takes any hand edit.
 */
export async function editRow(file: string, agent: string, change: (row: RowState) => RowState | undefined): Promise<RowEditOutcome> {
  let stamp: Date | undefined
  const store = await PlanStore.open(file, {now: () => stamp ?? new Date()})
  try {
    const state = store.state
    const row = state.rows.get(agent)
    if (!row || !store.plan.agents.some((candidate) => candidate.id === agent)) return {kind: 'unknown-agent'}
    const next = change(row)
    if (!next) return {kind: 'not-applicable', status: row.held ?? row.status}
    const given = state.meta.lastUpdated ? new Date(state.meta.lastUpdated) : undefined
    if (given && !Number.isNaN(given.getTime())) stamp = given
    state.rows.set(agent, next)
    await store.write(state, {running: new Set()})
    return {kind: 'written', row: next}
  } finally {
    store.close()
  }
}
