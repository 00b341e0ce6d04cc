import {getNote, setNote} from '../plan/notes.js'
import {cells} from '../store/merge-state.js'
import {metaKeys, type TableState} from '../store/table-state.js'
import type {WriteResult} from '../store/plan-store.js'

/**
 * Take a person's edits (and rows the file added) from a write's result into
 * the executor's table, cell by cell. Not the whole result: the executor may
 * have changed other cells while that write waited its turn, and those stand.
 * Returns the edits it did not take: cells of agents launched meanwhile.
 */
export function adoptWrite(table: TableState, result: WriteResult, live: ReadonlySet<string>): Array<{agent: string; column: string; to: string}> {
  const kept: Array<{agent: string; column: string; to: string}> = []
  for (const [agent, row] of result.state.rows) if (!table.rows.has(agent)) table.rows.set(agent, row)
  for (const edit of result.humanEdits) {
    const merged = result.state.rows.get(edit.agent)
    if (edit.agent === '') {
      const meta = metaKeys.find(([, , label]) => label === edit.column)
      if (meta) table.meta[meta[0]] = result.state.meta[meta[0]]
      continue
    }
    const current = table.rows.get(edit.agent)
    if (!merged || !current) continue
    // A cell mdplan kept (its agent was running) stays as the executor has it now.
    if (result.conflicts.some((c) => c.agent === edit.agent && c.column === edit.column && c.winner === 'mdplan')) continue
    // Launched after that write was issued: the edit met a live attempt, and the attempt's cells stand.
    if (live.has(edit.agent)) {
      kept.push({agent: edit.agent, column: edit.column, to: edit.to})
      continue
    }
    const next = {...current, extra: {...current.extra}}
    const cell = cells.find(([, column]) => column === edit.column)
    if (cell) next[cell[0]] = merged[cell[0]] as never
    else next.extra[edit.column] = merged.extra[edit.column] ?? ''
    const conflict = getNote(merged.notes, 'conflict')
    if (conflict) next.notes = setNote(next.notes, 'conflict', conflict)
    table.rows.set(edit.agent, next)
  }
  return kept
}
