import type {Plan} from '../plan/types.js'
import type {TableState} from '../store/table-state.js'

/**
 * Where each held row's Status cell is (`plan.md:78:6`), for the one warning that names it. The plan is
 * parsed only when the held rows change (a held row is rare, and a parse of 1000 agents costs about a
 * second), never for a write with none.
 */
export function heldPlaces(plan: () => Plan): (state: TableState) => ReadonlyMap<string, string> | undefined {
  let key = ''
  let places = new Map<string, string>()
  return (state) => {
    let next = ''
    for (const [agent, row] of state.rows) if (row.held !== undefined) next += `${agent}\u0000${row.held}\u0001`
    if (next === '') {
      key = ''
      return undefined
    }
    if (next !== key) {
      key = next
      places = new Map()
      const parsed = plan()
      const table = parsed.state?.table
      for (const row of table?.rows ?? []) {
        if (row.status !== undefined || places.has(row.agent)) continue
        const at = row.cells[table!.index.status]!.position.start
        places.set(row.agent, `${parsed.file}:${at.line}:${at.column}`)
      }
    }
    return places
  }
}
