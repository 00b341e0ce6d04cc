import {statuses} from '../plan/types.js'
import {warn, type StepContext} from './step-context.js'

/**
 * Once per hold: a row a person set to a status mdplan does not know (`skipped`) during the run is held,
 * as `mdplan validate` and a run's start would refuse it. Said with the cell's place and the statuses
 * mdplan knows (`places`: from the file that write merged); said again only if the text changes.
 */
export function warnHeld(ctx: StepContext, places: ReadonlyMap<string, string> | undefined): void {
  const {state} = ctx
  if (places === undefined && state.heldWarned.size === 0) return
  for (const [agent, text] of state.heldWarned) if (state.table.rows.get(agent)?.held !== text) state.heldWarned.delete(agent)
  if (places === undefined) return
  for (const agent of places.keys()) {
    const text = state.table.rows.get(agent)?.held
    // Not held in the executor's table: the edit met a running agent and was not taken (said as such).
    if (text === undefined || state.heldWarned.get(agent) === text) continue
    state.heldWarned.set(agent, text)
    const shown = text === '' ? 'an empty status' : `unknown status \`${text}\``
    warn(
      ctx,
      `${places.get(agent)}: ${shown} for agent ${agent}, written during the run: expected one of ${statuses.join(', ')} [unknown-status]; ` +
        `${agent} is held: not launched, its cell kept as written, until you write one of those (the run ends without it, exit 1)`
    )
  }
}
