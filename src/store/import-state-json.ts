import type {Plan, Status} from '../plan/types.js'
import {statuses} from '../plan/types.js'
import {formatDuration} from '../util/format-duration.js'
import {setNote} from '../plan/notes.js'
import {emptyRow, tableStateFromPlan, type RowState, type TableState} from './table-state.js'

/** A `.parallel-plan-state.json` that cannot be mapped; `key` is the JSON path at fault. */
export class StateJsonError extends Error {
  constructor(
    readonly key: string,
    reason: string
  ) {
    super(`.parallel-plan-state.json: ${key}: ${reason}`)
    this.name = 'StateJsonError'
  }
}

const vocabulary = new Set<string>(statuses)
/** Words other executors used for the same states. */
const synonyms: Record<string, Status> = {
  running: 'in_progress',
  started: 'in_progress',
  done: 'completed',
  complete: 'completed',
  success: 'completed',
  succeeded: 'completed',
  error: 'failed',
  failure: 'failed',
  blocked: 'pending',
  queued: 'pending',
  waiting: 'pending',
  question: 'needs_input'
}

/**
 * Map a `.parallel-plan-state.json` side-file onto the table, over what the
 * plan's table already says. It has no fixed public schema: accepted are
 * `{agents: {A: {...}}}` and `{agents: [{id: 'A', ...}]}`, each agent with
 * `status`, `agent_id`/`agentId`, `duration` (text) or `duration_ms`,
 * `notes`, `attempts`; and top-level `started`, `last_updated`/`lastUpdated`,
 * `build`, `integration`. A key it does not know (the real executor also
 * writes `startTimestamp` and `endTimestamp`) has no place in the table: it is
 * left out and `warn` hears its JSON path. A value of the wrong kind, or a
 * status it cannot map, throws a StateJsonError naming the key. Pure.
 */
export function importStateJson(json: unknown, plan: Plan, warn: (key: string) => void = () => {}): TableState {
  const state = tableStateFromPlan(plan)
  if (!isObject(json)) throw new StateJsonError('(root)', `expected an object, got ${kind(json)}`)
  for (const [id, key, entry] of agentEntries(json)) {
    if (!isObject(entry)) throw new StateJsonError(key, `expected an object, got ${kind(entry)}`)
    const row: RowState = state.rows.get(id) ?? emptyRow()
    readAgent(row, entry, key, warn)
    state.rows.set(id, row)
  }
  readMeta(state, json, warn)
  return state
}

/** Each agent's id, its JSON path and its entry, from `agents` (or `state`, `tasks`): an object by id, or a list. */
function agentEntries(json: Record<string, unknown>): Array<[string, string, unknown]> {
  const agents = json.agents ?? json.state ?? json.tasks
  const entries: Array<[string, string, unknown]> = []
  if (Array.isArray(agents)) {
    agents.forEach((entry, i) => {
      const key = `agents[${i}]`
      if (!isObject(entry)) throw new StateJsonError(key, `expected an object, got ${kind(entry)}`)
      const id = entry.id ?? entry.agent ?? entry.name
      if (typeof id !== 'string' || id === '') throw new StateJsonError(`${key}.id`, 'every agent needs an `id` string')
      entries.push([id, key, entry])
    })
  } else if (isObject(agents)) {
    for (const [id, entry] of Object.entries(agents)) entries.push([id, `agents.${id}`, entry])
  } else {
    throw new StateJsonError('agents', agents === undefined ? 'missing: expected `agents` (an object by id, or a list)' : `expected an object or a list, got ${kind(agents)}`)
  }
  return entries
}

/** One agent's entry (at JSON path `key`) onto its row. */
function readAgent(row: RowState, entry: Record<string, unknown>, key: string, warn: (key: string) => void): void {
  for (const [field, value] of Object.entries(entry)) {
    const at = `${key}.${field}`
    switch (field) {
      case 'id':
      case 'agent':
      case 'name':
        break
      case 'status':
        row.status = toStatus(value, at)
        break
      case 'agent_id':
      case 'agentId':
      case 'session_id':
      case 'sessionId':
        row.agentId = text(value, at)
        break
      case 'duration':
        row.duration = typeof value === 'number' ? formatDuration(value * 1000) : text(value, at)
        break
      case 'duration_ms':
      case 'durationMs':
        if (typeof value !== 'number') throw new StateJsonError(at, `expected milliseconds as a number, got ${kind(value)}`)
        row.duration = formatDuration(value)
        break
      case 'notes':
      case 'note':
        row.notes = Array.isArray(value) ? value.map((item, i) => text(item, `${at}[${i}]`)).join('; ') : text(value, at)
        break
      case 'attempts':
        if (typeof value !== 'number') throw new StateJsonError(at, `expected a number, got ${kind(value)}`)
        break
      case 'error':
      case 'last_error':
        if (value !== null && value !== '') row.notes = setNote(row.notes, `attempt ${Number(entry.attempts) || 1}`, text(value, at))
        break
      case 'started_at':
      case 'startedAt':
      case 'completed_at':
      case 'completedAt':
      case 'finished_at':
        break
      default:
        warn(at)
    }
  }
}

/** The top-level keys: when the run started, when the table was last updated, the build and integration states. */
function readMeta(state: TableState, json: Record<string, unknown>, warn: (key: string) => void): void {
  for (const [field, value] of Object.entries(json)) {
    switch (field) {
      case 'agents':
      case 'state':
      case 'tasks':
      case 'version':
      case 'plan':
      case 'plan_file':
        break
      case 'started':
      case 'started_at':
        state.meta.started = text(value, field)
        break
      case 'last_updated':
      case 'lastUpdated':
      case 'updated_at':
        state.meta.lastUpdated = text(value, field)
        break
      case 'build':
        state.meta.build = isObject(value) ? text(value.status, 'build.status') : text(value, field)
        break
      case 'integration':
        state.meta.integration = isObject(value) ? text(value.status, 'integration.status') : text(value, field)
        break
      default:
        warn(field)
    }
  }
}

function toStatus(value: unknown, key: string): Status {
  if (typeof value !== 'string') throw new StateJsonError(key, `expected a status string, got ${kind(value)}`)
  const word = value.trim().toLowerCase().replace(/[\s-]+/g, '_')
  if (vocabulary.has(word)) return word as Status
  const synonym = synonyms[word]
  if (synonym) return synonym
  throw new StateJsonError(key, `unknown status \`${value}\` (expected one of ${statuses.join(', ')})`)
}

function text(value: unknown, key: string): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  throw new StateJsonError(key, `expected text, got ${kind(value)}`)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function kind(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value
}
