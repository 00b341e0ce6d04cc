import {cells, type HumanEdit} from './merge-state.js'
import {metaKeys, type RowState, type TableMeta, type TableState} from './table-state.js'

export interface StaleSave {
  /** The base to merge `theirs` from: `theirs` itself (nothing in it is an edit) but for the cells it undoes. */
  base: {rows: Map<string, RowState>; meta: TableMeta}
  /** What the run should tell the person (undos taken or come too late). */
  notices: string[]
  /** Agents whose Status the save would have set back, which mdplan kept. */
  kept: string[]
}

/**
 * A save whose state section is one mdplan wrote or read before (`theirs`):
 * an editor's buffer loaded earlier, a `git checkout`, or a person's undo.
 * It changes nothing in the table, except that a cell a person edited after
 * that version (`since`, oldest first), which still holds the value they set
 * and which the save puts back to the value their edit replaced, is an undo
 * of their edit when the save left the text around the table as it is now
 * (`current`: an undo in the buffer that made the edit touches the table
 * alone): the base takes their value there, so the merge takes the save's,
 * unless mdplan changed another cell of that row since (it launched the
 * re-queue): that row stays mdplan's whole, its old Duration never comes back
 * into a running row.
 * A save older around the table too is an older buffer, and keeps the edit.
 * Either way a notice names the cell: an undo made together with an edit
 * around the table, and an older buffer saved unchanged after the edit, are
 * read the wrong way. Pure.
 */
export function staleBase(theirs: {rows: Map<string, RowState>; meta: TableMeta}, mine: TableState, since: readonly HumanEdit[], current: boolean): StaleSave {
  const rows = new Map<string, RowState>()
  for (const [agent, row] of theirs.rows) rows.set(agent, {...row, extra: {...row.extra}})
  const base = {rows, meta: {...theirs.meta}}
  const notices: string[] = []
  const undone = new Set<string>()
  // Per cell: the value before the person's first edit since that version, and the value they left.
  const spans = new Map<string, {agent: string; column: string; from: string; to: string}>()
  for (const edit of since) {
    const key = `${edit.agent}\u0000${edit.column}`
    const span = spans.get(key)
    spans.set(key, span ? {...span, to: edit.to} : {...edit})
  }
  // Rows mdplan changed after the person's edit (a re-queue it launched): mdplan's whole, no cell of the edit undone in them.
  const moved = new Set<string>()
  for (const {agent, column, from, to} of spans.values()) {
    const now = read(mine, agent, column)
    if (agent !== '' && now !== undefined && now !== to && now !== from) moved.add(agent)
  }
  for (const {agent, column, from, to} of spans.values()) {
    const saved = read(theirs, agent, column)
    const now = read(mine, agent, column)
    if (saved === undefined || now === undefined || saved !== from || from === to) continue
    const what = agent === '' ? `\`${column}:\`` : `${agent}: ${column}`
    if (now === to && moved.has(agent)) continue
    if (now === to && current) {
      write(base, agent, column, to)
      undone.add(agent)
      notices.push(`${what} is back to ${shown(from)}, as it was before the edit to ${shown(to)}: taken as an undo of that edit (the rest of the file is as it was; if it was an older buffer saved unchanged, make the edit again)`)
    } else if (now === to) {
      notices.push(`${what} was saved back to ${shown(from)}, as it was before the edit to ${shown(to)}, in a buffer older than the file around the table too: taken for an older buffer, kept ${shown(to)} (to undo the edit, set it to ${shown(from)} again)`)
    } else if (now !== from) {
      notices.push(`${what} was saved back to ${shown(from)}, as it was before the edit to ${shown(to)}, but mdplan has changed it since (${shown(now)}): kept mdplan's value`)
    }
  }
  const kept: string[] = []
  for (const [agent, row] of theirs.rows) {
    const want = mine.rows.get(agent)
    if (want && want.status !== row.status && !undone.has(agent)) kept.push(agent)
  }
  return {base, notices, kept}
}

function shown(value: string): string {
  return JSON.stringify(value === '' ? '—' : value)
}

function read(table: {rows: Map<string, RowState>; meta: TableMeta}, agent: string, column: string): string | undefined {
  if (agent === '') {
    const meta = metaKeys.find(([, , label]) => label === column)
    return meta ? (table.meta[meta[0]] ?? '') : undefined
  }
  const row = table.rows.get(agent)
  if (!row) return undefined
  const cell = cells.find(([, header]) => header === column)
  return cell ? row[cell[0]] : (row.extra[column] ?? '')
}

function write(table: {rows: Map<string, RowState>; meta: TableMeta}, agent: string, column: string, value: string): void {
  if (agent === '') {
    const meta = metaKeys.find(([, , label]) => label === column)
    if (meta) table.meta[meta[0]] = value
    return
  }
  const row = table.rows.get(agent)!
  const cell = cells.find(([, header]) => header === column)
  if (cell) row[cell[0]] = value as never
  else row.extra[column] = value
}
