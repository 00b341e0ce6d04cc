import {eventSchemaVersion, type RunEvent, type RunEventType} from '../events.js'

type FieldType = 'string' | 'number' | 'boolean' | 'string[]' | 'object'

/** Every event's fields (besides `v`, `type` and `time`); a `?` suffix marks an optional one. Documented in docs/events.md. */
export const eventFields: Record<RunEventType, Record<string, FieldType>> = {
  'run-started': {plan: 'string', agents: 'number', concurrency: 'number', resumed: 'boolean', 'accounts?': 'string[]'},
  'verification-started': {phase: 'string', command: 'string'},
  'verification-finished': {phase: 'string', ok: 'boolean', attempts: 'number', 'log?': 'string'},
  launched: {agent: 'string', 'agentId?': 'string', attempt: 'number', resumed: 'boolean', log: 'string'},
  'agent-id': {agent: 'string', agentId: 'string'},
  completed: {agent: 'string', 'agentId?': 'string', attempt: 'number', durationMs: 'number', 'note?': 'string', 'costUsd?': 'number', 'tokens?': 'number'},
  failed: {agent: 'string', 'agentId?': 'string', attempt: 'number', durationMs: 'number', reason: 'string', willRetry: 'boolean'},
  question: {agent: 'string', 'agentId?': 'string', 'attempt?': 'number', question: 'string'},
  'awaiting-review': {agent: 'string', 'agentId?': 'string', attempt: 'number', durationMs: 'number', 'note?': 'string'},
  approved: {agent: 'string'},
  blocked: {agent: 'string', by: 'string[]'},
  paused: {reason: 'string', untilMs: 'number', 'account?': 'string'},
  budget: {reached: 'boolean', line: 'string', spent: 'object', budget: 'object'},
  'human-edit': {agent: 'string', column: 'string', value: 'string'},
  'state-written': {file: 'string', bytes: 'number', ms: 'number'},
  warning: {message: 'string'},
  child: {agent: 'string', plan: 'string', event: 'object'},
  'run-finished': {exitCode: 'number', scorecard: 'object'}
}

export type VersionedRunEvent = RunEvent & {v: number}

/** One event as one line of NDJSON, `v` first so readers can check it before anything else. */
export function serializeEvent(event: RunEvent): string {
  return JSON.stringify({v: eventSchemaVersion, ...event}) + '\n'
}

/**
 * Parse and check one line of `mdplan run --json`: for tools reading the
 * stream, and for tests proving every event survives the trip.
 */
export function parseEventLine(line: string): VersionedRunEvent {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch (error) {
    throw new Error(`not valid JSON: ${(error as Error).message}`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not a JSON object')
  const record = value as Record<string, unknown>
  if (record.v !== eventSchemaVersion) throw new Error(`unsupported event schema version ${JSON.stringify(record.v)} (expected ${eventSchemaVersion})`)
  if (typeof record.time !== 'string') throw new Error('missing "time"')
  const fields = typeof record.type === 'string' ? eventFields[record.type as RunEventType] : undefined
  if (!fields) throw new Error(`unknown event type ${JSON.stringify(record.type)}`)
  for (const [key, type] of Object.entries(fields)) {
    const name = key.replace(/\?$/, '')
    const present = record[name] !== undefined
    if (!present && key.endsWith('?')) continue
    if (!present) throw new Error(`${record.type}: missing "${name}"`)
    if (!hasType(record[name], type)) throw new Error(`${record.type}: "${name}" is not a ${type}`)
  }
  return record as unknown as VersionedRunEvent
}

function hasType(value: unknown, type: FieldType): boolean {
  if (type === 'string[]') return Array.isArray(value) && value.every((item) => typeof item === 'string')
  if (type === 'object') return typeof value === 'object' && value !== null && !Array.isArray(value)
  return typeof value === type
}
