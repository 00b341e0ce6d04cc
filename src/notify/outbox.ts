import {close, closeSync, existsSync, fstatSync, fsync, openSync, readFileSync, readSync, writeSync} from 'node:fs'
import {join} from 'node:path'
import {makeDir} from '../util/make-dir.js'
import type {NotifyEvent} from './notify-event.js'

/** An event queued, with the keys of the targets it is for (a target added later never gets it). */
export interface OutboxEntry {
  event: NotifyEvent
  targets: string[]
}

/** How a delivery to one target ended: sent, refused for good, skipped (no `notify-send`), or given up on (too old). */
export type DeliveryOutcome = 'delivered' | 'failed' | 'skipped' | 'expired'

export interface DeliveryRecord {
  id: string
  target: string
  outcome: DeliveryOutcome
  /** ISO 8601 UTC. */
  time: string
  tries: number
  /** Why it failed: the status and the start of the answer, or the error. */
  detail?: string
}

/**
 * A plan's notifications on disk: `outbox.ndjson`, each event queued, and `delivered.ndjson`, each delivery
 * settled, by event id and target. What the outbox holds and the log does not settle is still to send, by this
 * run, the next one, or `mdplan serve`. Both are only ever appended to; a line a crash cut short is skipped when
 * read, and the next append starts on a line of its own.
 *
 * An append is written (`write`) before it returns, so a coordinator killed the next instant has it in the file;
 * the `fsync` that puts it on the disk (against a lost machine) follows off the caller's path: on a busy disk one
 * takes milliseconds, at times a hundred, and the caller is the executor's step.
 */
export class Outbox {
  readonly file: string
  readonly deliveredFile: string
  #made = false

  constructor(readonly folder: string) {
    this.file = join(folder, 'outbox.ndjson')
    this.deliveredFile = join(folder, 'delivered.ndjson')
  }

  append(entry: OutboxEntry): void {
    this.#append(this.file, JSON.stringify(entry))
  }

  record(record: DeliveryRecord): void {
    this.#append(this.deliveredFile, JSON.stringify(record))
  }

  #append(file: string, line: string): void {
    if (!this.#made) makeDir(this.folder)
    this.#made = true
    appendLine(file, line)
  }

  /** The events queued, oldest first, each id once (a rerun that queued one again adds nothing). */
  entries(): OutboxEntry[] {
    const seen = new Set<string>()
    return readLines<OutboxEntry>(this.file).filter((entry) => {
      if (typeof entry.event?.id !== 'string' || !Array.isArray(entry.targets) || seen.has(entry.event.id)) return false
      seen.add(entry.event.id)
      return true
    })
  }

  /** The deliveries settled, by `settledKey(id, target)`: the first record of each. */
  settled(): Map<string, DeliveryRecord> {
    const settled = new Map<string, DeliveryRecord>()
    for (const record of readLines<DeliveryRecord>(this.deliveredFile)) {
      if (typeof record.id !== 'string' || typeof record.target !== 'string') continue
      const key = settledKey(record.id, record.target)
      if (!settled.has(key)) settled.set(key, record)
    }
    return settled
  }

  /** Every (event, target) the outbox holds that no record settles, oldest first. */
  pending(): Array<{event: NotifyEvent; target: string}> {
    const settled = this.settled()
    return this.entries().flatMap((entry) => entry.targets.filter((target) => !settled.has(settledKey(entry.event.id, target))).map((target) => ({event: entry.event, target})))
  }
}

export function settledKey(id: string, target: string): string {
  return `${id}\n${target}`
}

/** Append one line (after a line a crash cut short, on a line of its own); then sync it to the disk, in the background. */
function appendLine(file: string, line: string): void {
  const fd = openSync(file, 'a+')
  try {
    const size = fstatSync(fd).size
    const last = Buffer.alloc(1)
    const torn = size > 0 && readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a
    writeSync(fd, `${torn ? '\n' : ''}${line}\n`)
  } catch (error) {
    closeSync(fd)
    throw error
  }
  fsync(fd, () => close(fd, () => {}))
}

/** The lines that parse as JSON objects; a torn or foreign line is skipped. */
function readLines<T>(file: string): T[] {
  if (!existsSync(file)) return []
  const values: T[] = []
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue
    try {
      const value = JSON.parse(line) as unknown
      if (typeof value === 'object' && value !== null) values.push(value as T)
    } catch {}
  }
  return values
}
