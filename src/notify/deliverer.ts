import {plural} from '../util/plural.js'
import {backoffDelay} from './backoff.js'
import type {NotifyEvent} from './notify-event.js'
import type {NotifyTarget} from './notify-target.js'
import {settledKey, type DeliveryOutcome, type Outbox} from './outbox.js'
import type {SendResult} from './send-result.js'

export interface DelivererOptions {
  outbox: Outbox
  targets: readonly NotifyTarget[]
  /** One try; never throws (sendToTarget). */
  send: (target: NotifyTarget, event: NotifyEvent, signal: AbortSignal) => Promise<SendResult>
  warn: (message: string) => void
  now?: () => number
  random?: () => number
  /** An event still not delivered this long after it happened is given up on (recorded `expired`). Default a day. */
  maxAgeMs?: number
  /** Tries under way at once, all targets together. */
  parallel?: number
}

interface Task {
  event: NotifyEvent
  target: NotifyTarget
  key: string
  tries: number
  timer?: NodeJS.Timeout
}

/**
 * The delivery worker, in the coordinator's process: every (event, target) is tried at once, then again with
 * exponential backoff while the answer says it may work later, and settled in the outbox's delivery log. Nothing
 * of it is awaited by the executor: `deliver` only schedules; sends are asynchronous I/O, their timers unref'd.
 */
export class Deliverer {
  readonly #options: DelivererOptions
  readonly #tasks = new Map<string, Task>()
  readonly #ready: Task[] = []
  readonly #controller = new AbortController()
  readonly #warned = new Set<string>()
  /** Left for a later run (a variable not set here). */
  readonly #later = new Set<string>()
  #sending = 0
  #idle: Array<() => void> = []
  #closed = false

  constructor(options: DelivererOptions) {
    this.#options = options
  }

  /** Queue `event` for each of `targets` (keys; one the plan no longer has waits in the outbox). */
  deliver(event: NotifyEvent, targets: readonly string[]): void {
    if (this.#closed) return
    for (const key of targets) {
      const target = this.#options.targets.find((candidate) => candidate.key === key)
      const id = settledKey(event.id, key)
      if (!target || this.#tasks.has(id) || this.#later.has(id)) continue
      const task: Task = {event, target, key: id, tries: 0}
      this.#tasks.set(id, task)
      this.#queue(task)
    }
  }

  /** Deliveries not settled: under way, waiting for their next try, or left for a later run. */
  get left(): number {
    return this.#tasks.size + this.#later.size
  }

  /** Resolves once every delivery under way is settled (or left for later), or after `ms`; with how many are left. */
  async settle(ms: number): Promise<number> {
    if (this.#tasks.size > 0) {
      let timer: NodeJS.Timeout | undefined
      await Promise.race([new Promise<void>((resolve) => this.#idle.push(resolve)), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))])
      clearTimeout(timer)
    }
    return this.left
  }

  /** Stop: tries under way are ended (their events stay in the outbox), no retry is made. */
  close(): void {
    this.#closed = true
    this.#controller.abort()
    for (const task of this.#tasks.values()) clearTimeout(task.timer)
    this.#wake()
  }

  #queue(task: Task): void {
    this.#ready.push(task)
    // Never in the caller's turn: an event is queued by the executor's step, and sent after it.
    setImmediate(() => this.#pump())
  }

  #pump(): void {
    const parallel = this.#options.parallel ?? 4
    while (!this.#closed && this.#sending < parallel && this.#ready.length > 0) void this.#try(this.#ready.shift()!)
  }

  async #try(task: Task): Promise<void> {
    this.#sending++
    task.tries++
    let result: SendResult
    try {
      result = await this.#options.send(task.target, task.event, this.#controller.signal)
    } catch (error) {
      result = {kind: 'retry', detail: error instanceof Error ? error.message : String(error)}
    }
    this.#sending--
    if (!this.#closed) this.#settle(task, result)
    this.#pump()
  }

  #settle(task: Task, result: SendResult): void {
    const name = `notification ${task.event.id} to ${task.target.key}`
    switch (result.kind) {
      case 'ok':
        return this.#record(task, 'delivered')
      case 'skipped':
        this.#warnOnce(task.target.key, `notify: ${task.target.key} skipped: ${result.detail}`)
        return this.#record(task, 'skipped', result.detail)
      case 'permanent':
        this.#options.warn(`notify: ${name} failed for good: ${result.detail} (recorded in ${this.#options.outbox.deliveredFile}; not sent again)`)
        return this.#record(task, 'failed', result.detail)
      case 'later':
        this.#warnOnce(task.target.key, `notify: ${task.target.key}: ${result.detail}; its notifications stay in ${this.#options.outbox.file} for a run that has it`)
        this.#later.add(task.key)
        return this.#done(task)
      case 'retry': {
        const now = (this.#options.now ?? Date.now)()
        if (now - Date.parse(task.event.time) > (this.#options.maxAgeMs ?? 24 * 3600_000)) {
          this.#options.warn(`notify: ${name} given up after ${plural(task.tries, 'try', 'tries')} in a day: ${result.detail}`)
          return this.#record(task, 'expired', result.detail)
        }
        task.timer = setTimeout(() => this.#queue(task), backoffDelay(task.tries, (this.#options.random ?? Math.random)(), result.retryAfterMs))
        task.timer.unref()
      }
    }
  }

  #record(task: Task, outcome: DeliveryOutcome, detail?: string): void {
    const time = new Date((this.#options.now ?? Date.now)()).toISOString()
    try {
      this.#options.outbox.record({id: task.event.id, target: task.target.key, outcome, time, tries: task.tries, ...(detail ? {detail} : {})})
    } catch (error) {
      // Unrecorded, it is sent again by a later run, with the same id: a receiver drops it.
      this.#warnOnce('record', `notify: could not record a delivery in ${this.#options.outbox.deliveredFile}: ${error instanceof Error ? error.message : String(error)}`)
    }
    this.#done(task)
  }

  #done(task: Task): void {
    this.#tasks.delete(task.key)
    if (this.#tasks.size === 0) this.#wake()
  }

  #wake(): void {
    for (const resolve of this.#idle.splice(0)) resolve()
  }

  #warnOnce(key: string, message: string): void {
    if (this.#warned.has(key)) return
    this.#warned.add(key)
    this.#options.warn(message)
  }
}
