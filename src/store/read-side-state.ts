import {existsSync, readFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import type {Diagnostic, Plan} from '../plan/types.js'
import {importStateJson, StateJsonError} from './import-state-json.js'
import {tableStateFromPlan, type TableState} from './table-state.js'

export interface SideState {
  /** The table to start from: the plan's own, or the side-file's progress over it. */
  state: TableState
  /** The side-file's path when its progress was taken. */
  imported?: string
  /** Why it could not be taken (errors), keys left out (warnings), or that it will be (info). */
  diagnostics: Diagnostic[]
}

/**
 * What to do with a side-file whose progress the table does not have: take
 * it (`--import-state`), run from the table as it is (`--ignore-state-file`),
 * or, with no choice made, stop and ask.
 */
export type SideStateChoice = 'import' | 'ignore'

const ways = 'run with --import-state to take it into the table, or with --ignore-state-file (or delete the file) to run from the table as it is'

/**
 * The `.parallel-plan-state.json` beside a plan (the JSON side-file the
 * hand-driven `/execute-parallel-plan` keeps), read once, the same way for
 * `run`, `run --dry-run` and `validate` so all three agree on it. It counts
 * only while the plan's table has no progress of its own. A table with no
 * progress looks the same whether it never had any or a person reset it to
 * run again, so progress the side-file has is never taken unasked: without
 * `choice` that is an error saying how to keep or drop it, and with
 * `'import'` it is taken. A file that cannot be read or mapped is an error
 * (unless ignored), a key with no place in the table a warning. `planFile` is
 * the plan's path as the caller can open it.
 */
export function readSideState(plan: Plan, planFile: string, choice?: SideStateChoice): SideState {
  const state = tableStateFromPlan(plan)
  const name = '.parallel-plan-state.json'
  const path = join(dirname(planFile), name)
  // Messages name the side-file the way the plan itself is named in them.
  const file = join(dirname(plan.file), name)
  if (choice === 'ignore' || !existsSync(path)) return {state, diagnostics: []}
  if (![...state.rows.values()].every((row) => row.status === 'pending' && row.agentId === '')) {
    return {state, diagnostics: []}
  }
  const diagnostic = (severity: Diagnostic['severity'], rule: string, reason: string): Diagnostic => ({severity, rule, reason, file})
  let json: unknown
  try {
    json = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error)
    return {state, diagnostics: [diagnostic('error', 'state-json-unreadable', `cannot import the side-file: ${why} (or run with --ignore-state-file)`)]}
  }
  const unknown: string[] = []
  let imported: TableState
  try {
    imported = importStateJson(json, plan, (key) => unknown.push(key))
  } catch (error) {
    if (!(error instanceof StateJsonError)) throw error
    const why = error.message.replace(/^\.parallel-plan-state\.json: /, '')
    return {state, diagnostics: [diagnostic('error', 'state-json-unmappable', `cannot import the side-file: ${why} (or run with --ignore-state-file)`)]}
  }
  const progress = progressOf(state, imported)
  // Nothing the table lacks: there is nothing to take or to ask about.
  if (progress === undefined) return {state, diagnostics: []}
  if (choice !== 'import') {
    return {state, diagnostics: [diagnostic('error', 'state-json-unconfirmed', `has progress the table does not (${progress}), so it was not imported: ${ways}`)]}
  }
  const diagnostics = [diagnostic('info', 'state-json-import', `the plan has no progress in its table: this side-file's progress (${progress}) is imported into it (--import-state)`)]
  if (unknown.length > 0) {
    diagnostics.push(diagnostic('warning', 'state-json-unknown-key', `left out, no place for it in the table: ${unknown.map((key) => `\`${key}\``).join(', ')}`))
  }
  return {state: imported, imported: file, diagnostics}
}

/** The side-file's progress over the table's, by status (`2 completed, 1 failed`), if it has any. */
function progressOf(table: TableState, side: TableState): string | undefined {
  const counts = new Map<string, number>()
  for (const [id, row] of side.rows) {
    const own = table.rows.get(id)
    if (own && own.status === row.status && own.agentId === row.agentId) continue
    if (row.status === 'pending' && row.agentId === '') continue
    counts.set(row.status, (counts.get(row.status) ?? 0) + 1)
  }
  return counts.size === 0 ? undefined : [...counts].map(([status, n]) => `${n} ${status}`).join(', ')
}
