import {PlanStore} from '../store/plan-store.js'

/**
 * Set a child plan's failed rows back to `pending`, as a person re-queuing
 * them would: the parent is retrying the agent that runs this plan, so the
 * child's failed agents get another attempt (their `attempt N:` history
 * stays in Notes). Returns the agents re-queued.
 */
export async function requeueFailed(file: string): Promise<string[]> {
  const store = await PlanStore.open(file)
  try {
    const state = store.state
    const failed = [...state.rows].filter(([, row]) => row.status === 'failed').map(([id]) => id)
    if (failed.length === 0) return []
    for (const id of failed) state.rows.set(id, {...state.rows.get(id)!, status: 'pending'})
    await store.write(state, {running: new Set()})
    return failed
  } finally {
    store.close()
  }
}
