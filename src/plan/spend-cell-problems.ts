import {spendColumns} from './spend-columns.js'
import {spendFigure} from './spend-figure.js'
import {noneAsEmpty} from './none-as-empty.js'
import type {Diagnostic, Plan} from './types.js'

/**
 * A `Tokens` or `Cost` cell that reads as no figure (a person's `abc`): kept as written, counted as nothing
 * spent, and said here, at the cell.
 */
export function spendCellProblems(plan: Plan): Diagnostic[] {
  const table = plan.state?.table
  if (!table) return []
  const spend = spendColumns(table.columns)
  const out: Diagnostic[] = []
  for (const [key, at, form] of [
    ['tokens', spend.tokens, 'a token count such as `21,002`, `21002` or `21k`'],
    ['cost', spend.cost, 'dollars such as `$0.0750` or `0.075`']
  ] as const) {
    if (at === -1) continue
    for (const row of table.rows) {
      const cell = row.cells[at]
      if (!cell || noneAsEmpty(cell.value) === '' || spendFigure(key, cell.value) !== undefined) continue
      const reason = `the ${table.columns[at]} cell of agent ${row.agent || '(none)'} reads as no figure (\`${cell.value}\`): it counts as nothing spent, and a budget does not see it; write ${form}`
      out.push({severity: 'warning', rule: 'unreadable-spend', reason, file: plan.file, place: cell.position})
    }
  }
  return out
}
