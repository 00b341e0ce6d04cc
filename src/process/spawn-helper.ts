import {spawn, type ChildProcess} from 'node:child_process'
import {EventEmitter} from 'node:events'
import {spawnHelperOptions, spawnHelperSource} from './spawn-helper-source.js'
import type {AgentProcess, ProcessOutcome, SpawnProcessOptions} from './process-types.js'

interface Pending {
  process: HelperProcess
}

type Message =
  | {type: 'pid'; id: number; pid: number}
  | {type: 'out' | 'err'; id: number; chunk: Uint8Array}
  | {type: 'exit'; id: number; code: number | null; signal: string | null}
  | {type: 'done'; id: number; code?: number | null; signal?: string | null; error?: {code?: string; message: string}}

let helper: ChildProcess | undefined
let nextId = 0
const pending = new Map<number, Pending>()

/**
 * Start `file` through the spawn helper: fork() copies the page tables of the
 * process that calls it, and in a run of a thousand agents mdplan's are
 * large, so each launch from it costs milliseconds of a blocked event loop.
 * The helper is a bare Node started once (while mdplan is still small); it
 * forks every agent and streams its output back over IPC, in order.
 */
export function helperSpawn(file: string, args: readonly string[], options: SpawnProcessOptions): AgentProcess {
  const id = ++nextId
  const agent = new HelperProcess(file, args, () => {
    pending.delete(id)
    unrefHelper()
  })
  const channel = ensureHelper()
  pending.set(id, {process: agent})
  refHelper()
  const env = options.env ?? {...process.env}
  try {
    channel.send({type: 'spawn', id, file, args, cwd: options.cwd, env, input: options.input, inputFile: options.inputFile, registry: options.registry})
  } catch (error) {
    finish(id, {error: {message: `the spawn helper is gone: ${(error as Error).message}`}})
  }
  return agent
}

/**
 * Run `file` to its end through the spawn helper, output collected: for the short commands a run makes
 * per attempt (git's status and hash-object), which would otherwise fork mdplan's large process each
 * time. Undefined when no helper is up (a command that is not a run, or `MDPLAN_SPAWN_HELPER=0`):
 * starting one for a few commands would cost more than the forks it saves.
 */
export function helperExec(file: string, args: readonly string[], options: SpawnProcessOptions): Promise<ExecOutcome> | undefined {
  if (process.env.MDPLAN_SPAWN_HELPER === '0' || !helper?.connected) return undefined
  const child = helperSpawn(file, args, options)
  const stdout: Buffer[] = []
  const stderr: Buffer[] = []
  child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk))
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk))
  return Promise.resolve(child).then((outcome) => ({...outcome, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8')}))
}

export interface ExecOutcome extends ProcessOutcome {
  stdout: string
  stderr: string
}

/**
 * Start the helper now, while the caller is still small and has other work
 * (parsing the plan), so the first launch does not wait for a Node to boot.
 * It holds nothing open: an idle helper never keeps mdplan alive.
 */
export function warmSpawnHelper(): void {
  if (process.env.MDPLAN_SPAWN_HELPER === '0') return
  ensureHelper()
  unrefHelper()
}

function ensureHelper(): ChildProcess {
  if (helper && helper.connected) return helper
  const child = earlyHelper() ?? spawn(process.execPath, ['-e', spawnHelperSource], spawnHelperOptions(process.env))
  child.on('message', (message: Message) => onMessage(message))
  // Gone (killed, crashed): every agent still waiting on it ends as a spawn failure; the next spawn starts another.
  const gone = (): void => {
    if (helper === child) helper = undefined
    for (const id of [...pending.keys()]) finish(id, {error: {message: 'the spawn helper exited'}})
  }
  child.on('exit', gone)
  child.on('error', gone)
  helper = child
  return child
}

/**
 * The helper bin/start.js started before it loaded the CLI (a Node boots in about the time mdplan
 * takes to load and parse, so the first launch need not wait for one), taken once, if it is up.
 */
function earlyHelper(): ChildProcess | undefined {
  const global = globalThis as {__mdplanSpawnHelper?: ChildProcess}
  const child = global.__mdplanSpawnHelper
  global.__mdplanSpawnHelper = undefined
  return child && child.connected && child.exitCode === null && child.signalCode === null ? child : undefined
}

/** The helper keeps mdplan alive only while an agent runs, as the agent's own process would. */
function refHelper(): void {
  if (!helper) return
  helper.ref()
  ;(helper.channel as {ref?: () => void} | undefined)?.ref?.()
}

function unrefHelper(): void {
  if (!helper || pending.size > 0) return
  helper.unref()
  ;(helper.channel as {unref?: () => void} | undefined)?.unref?.()
}

function onMessage(message: Message): void {
  const entry = pending.get(message.id)
  if (!entry) return
  const agent = entry.process
  if (message.type === 'pid') agent.onPid(message.pid)
  else if (message.type === 'out') agent.stdout.emit('data', toBuffer(message.chunk))
  else if (message.type === 'err') agent.stderr.emit('data', toBuffer(message.chunk))
  else if (message.type === 'exit') agent.onExit(message.code, message.signal)
  else if (message.type === 'done') finish(message.id, message)
}

function finish(id: number, message: Omit<Extract<Message, {type: 'done'}>, 'type' | 'id'>): void {
  const entry = pending.get(id)
  if (!entry) return
  pending.delete(id)
  entry.process.onDone(message)
  unrefHelper()
}

function toBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
}

/** execa's subprocess, as much of it as spawnAgent uses. */
class HelperProcess implements AgentProcess {
  readonly stdout = new EventEmitter()
  readonly stderr = new EventEmitter()
  readonly started: Promise<number | undefined>
  readonly #events = new EventEmitter()
  readonly #command: string
  #resolveStarted!: (pid: number | undefined) => void
  #resolveOutcome!: (outcome: ProcessOutcome) => void
  readonly #outcome: Promise<ProcessOutcome>
  #exit: {code: number | null; signal: string | null} | undefined

  readonly release: () => void

  constructor(file: string, args: readonly string[], release: () => void) {
    this.release = release
    this.#command = [file, ...args].map(quote).join(' ')
    this.started = new Promise((resolve) => (this.#resolveStarted = resolve))
    this.#outcome = new Promise((resolve) => (this.#resolveOutcome = resolve))
  }

  once(event: 'exit', listener: () => void): this {
    // The exit may have come in the same read as the pid, before the caller listened.
    if (this.#exit) queueMicrotask(listener)
    else this.#events.once(event, listener)
    return this
  }

  then<T = ProcessOutcome, E = never>(onFulfilled?: ((value: ProcessOutcome) => T | PromiseLike<T>) | null, onRejected?: ((reason: unknown) => E | PromiseLike<E>) | null): Promise<T | E> {
    return this.#outcome.then(onFulfilled, onRejected)
  }

  onPid(pid: number): void {
    this.#resolveStarted(pid)
  }

  onExit(code: number | null, signal: string | null): void {
    this.#exit ??= {code, signal}
    this.#events.emit('exit')
  }

  onDone(message: Omit<Extract<Message, {type: 'done'}>, 'type' | 'id'>): void {
    this.#resolveStarted(undefined)
    if (message.error) {
      // The words execa uses, so notes and logs read the same either way.
      const reason = message.error.code ?? 'an error'
      const shortMessage = `Command failed with ${reason}: ${this.#command}\n${message.error.message}`
      this.#resolveOutcome({shortMessage, message: shortMessage})
      return
    }
    const code = this.#exit?.code ?? message.code ?? null
    const signal = this.#exit?.signal ?? message.signal ?? null
    this.#resolveOutcome({exitCode: code ?? undefined, signal: signal ?? undefined, message: ''})
  }
}

function quote(arg: string): string {
  return /^[\w./:=@%+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`
}
