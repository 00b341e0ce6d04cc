import {cells} from '../store/merge-state.js'
import {mergeNoteItems} from '../store/merge-note-items.js'
import {mergeWaitLines} from '../store/merge-wait-lines.js'
import {metaKeys} from '../store/table-state.js'
import type {WriteResult} from '../store/plan-store.js'
import {execRow, type ExecRow, type ExecTable} from './exec-row.js'
import {readNotes, renderNotes, withNotes} from './row-notes.js'

export interface NotTaken {
  agent: string
  column: string
  to: string
  /** For Notes: mdplan's items the edit changed (the person's own items were taken). */
  items?: string[]
}

/**
 * Take a person's edits (and rows the file added) from a write's result into
 * the executor's table, cell by cell. Not the whole result: the executor may
 * have changed other cells while that write waited its turn, and those stand.
 * Returns the edits it did not take: cells of agents running now. Each of
 * those rows gets a `conflict:` note saying what mdplan kept, which stays
 * through the row's later writes (docs/plan-format.md: the conflict is noted in the row).
 *
 * One of the store's edges: the merged rows come in as the store has them, and a Notes cell a person
 * edited is merged item by item as text, then read into the row's values.
 */
export function adoptWrite(table: ExecTable, result: WriteResult, live: ReadonlySet<string>): NotTaken[] {
  const kept: NotTaken[] = []
  const noted = new Map<string, string[]>()
  for (const [agent, row] of result.state.rows) if (!table.rows.has(agent)) table.rows.set(agent, execRow(row))
  for (const edit of result.humanEdits) {
    const merged = result.state.rows.get(edit.agent)
    if (edit.agent === '' && edit.column === 'Waits') {
      // The person's lines, against the executor's waits now: a limit recorded since that write was issued stands.
      table.meta.waits = mergeWaitLines(edit.from, table.meta.waits ?? '', edit.to).text ?? ''
      continue
    }
    if (edit.agent === '') {
      const meta = metaKeys.find(([, , label]) => label === edit.column)
      if (meta) table.meta[meta[0]] = result.state.meta[meta[0]]
      continue
    }
    const current = table.rows.get(edit.agent)
    if (!merged || !current) continue
    const next = {...current, extra: {...current.extra}}
    const conflict = result.conflicts.some((c) => c.agent === edit.agent) ? readNotes(merged.notes).conflict : undefined
    if (conflict) note(noted, edit.agent, conflict)
    table.rows.set(edit.agent, next)
    // A cell mdplan kept (its agent was running when the write merged) stays as the executor has it now.
    const mdplanKept = result.conflicts.some((c) => c.agent === edit.agent && c.column === edit.column && c.winner === 'mdplan')
    const running = live.has(edit.agent)
    const cell = cells.find(([, column]) => column === edit.column)
    if (edit.column === 'Notes') {
      // The person's own items are taken even while the agent runs; mdplan's items keep its values then.
      const items = mergeNoteItems(edit.from, renderNotes(current.notes), edit.to, running || mdplanKept)
      next.notes = readNotes(items.notes)
      if (running && !mdplanKept && items.refused.length > 0) {
        kept.push({agent: edit.agent, column: edit.column, to: edit.to, items: items.refused})
        note(noted, edit.agent, `Notes kept mdplan's ${items.refused.join(' and ')}`)
      }
      continue
    }
    if (mdplanKept) continue
    // A column the person added is theirs alone: mdplan has no value of its own to keep there.
    if (!cell) {
      next.extra[edit.column] = merged.extra[edit.column] ?? ''
      continue
    }
    // Launched after that write was issued: the edit met a live attempt, and the attempt's cells stand.
    if (running) {
      kept.push({agent: edit.agent, column: edit.column, to: edit.to})
      note(noted, edit.agent, `${edit.column} kept ${shown(current, cell[0])}`)
      continue
    }
    next[cell[0]] = merged[cell[0]] as never
    // A status mdplan does not know comes with its text: the agent is held (see RowState.held).
    if (cell[0] === 'status') {
      if (merged.held === undefined) delete next.held
      else next.held = merged.held
    }
  }
  for (const [agent, items] of noted) {
    const row = table.rows.get(agent)!
    table.rows.set(agent, {...row, notes: withNotes(row.notes, {conflict: [...new Set(items)].join(', ')})})
  }
  return kept
}

function note(noted: Map<string, string[]>, agent: string, text: string): void {
  const list = noted.get(agent) ?? []
  list.push(text)
  noted.set(agent, list)
}

function shown(row: ExecRow, key: 'status' | 'agentId' | 'duration' | 'notes'): string {
  return (key === 'notes' ? renderNotes(row.notes) : row[key]) || '—'
}
