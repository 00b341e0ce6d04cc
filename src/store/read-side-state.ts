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
 * The `.parallel-plan-state.json` beside a plan (the JSON side-file the
 * hand-driven `/execute-parallel-plan` keeps), read once, the same way for
 * `run`, `run --dry-run` and `validate` so all three agree on it. It is taken
 * only while the plan's table has no progress of its own; then a file that
 * cannot be read or mapped is an error, and a key with no place in the table a
 * warning. `planFile` is the plan's path as the caller can open it.
 */
export function readSideState(plan: Plan, planFile: string): SideState {
  const state = tableStateFromPlan(plan)
  const name = '.parallel-plan-state.json'
  const path = join(dirname(planFile), name)
  // Messages name the side-file the way the plan itself is named in them.
  const file = join(dirname(plan.file), name)
  if (!existsSync(path)) return {state, diagnostics: []}
  if (![...state.rows.values()].every((row) => row.status === 'pending' && row.agentId === '')) {
    return {state, diagnostics: []}
  }
  const diagnostic = (severity: Diagnostic['severity'], rule: string, reason: string): Diagnostic => ({severity, rule, reason, file})
  let json: unknown
  try {
    json = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error)
    return {state, diagnostics: [diagnostic('error', 'state-json-unreadable', `cannot import the side-file: ${why}`)]}
  }
  const unknown: string[] = []
  try {
    const imported = importStateJson(json, plan, (key) => unknown.push(key))
    const diagnostics = [diagnostic('info', 'state-json-import', 'the plan has no progress in its table: this side-file\'s progress will be imported into it')]
    if (unknown.length > 0) {
      diagnostics.push(diagnostic('warning', 'state-json-unknown-key', `left out, no place for it in the table: ${unknown.map((key) => `\`${key}\``).join(', ')}`))
    }
    return {state: imported, imported: file, diagnostics}
  } catch (error) {
    if (!(error instanceof StateJsonError)) throw error
    return {state, diagnostics: [diagnostic('error', 'state-json-unmappable', `cannot import the side-file: ${error.message.replace(/^\.parallel-plan-state\.json: /, '')}`)]}
  }
}
