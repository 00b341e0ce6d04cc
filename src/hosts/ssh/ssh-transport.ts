import {createHash} from 'node:crypto'
import {existsSync, mkdirSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {readFile, rm} from 'node:fs/promises'
import {tmpdir, userInfo} from 'node:os'
import {join} from 'node:path'
import {execa} from 'execa'
import type {HostSpec} from '../host-spec.js'
import {shellQuote} from '../job-archive.js'
import {isAlive} from '../../store/is-alive.js'
import {remoteCall, type RemoteCallOptions, type RemoteOutcome} from './remote-call.js'
import {eitherSignal} from '../../process/either-signal.js'

/** ssh's own exit status for "could not connect or the connection broke". */
export const sshUnreachable = 255

let masters = 0

export interface SshTransport {
  /** Run a constant script there with arguments (each quoted for the remote shell). */
  exec(script: string, args: readonly string[], options?: RemoteCallOptions): PromiseLike<RemoteOutcome>
  /** Make sure a shared connection is up (ControlMaster), so each call costs one round trip, not a login. */
  connect(): Promise<{ok: true} | {ok: false; reason: string}>
  close(): Promise<void>
  /** `dev@build1:2222`, for messages. */
  label: string
  /** The command a person runs to check the host answers. */
  probe: string
}

/**
 * Where this user's runs keep their ssh masters' sockets: `$TMPDIR/mdplan-ssh-<uid>/`, one folder per mdplan
 * process in it (`<pid>/`), so no run ever reaches (or ends) another run's masters, and a run's masters are
 * closed, and its folder removed, when its last host closes (the run's end).
 */
export function sshSocketsRoot(): string {
  return join(tmpdir(), `mdplan-ssh-${userInfo().uid}`)
}

/** Open transports of this process per socket (two runs in one process share a master and close it last). */
const users = new Map<string, number>()
let openTransports = 0
let swept = false

/** This process's own folder of sockets, made on first use; the folders dead runs left are cleared then. */
function ownSockets(): string {
  const root = sshSocketsRoot()
  const own = join(root, String(process.pid))
  mkdirSync(own, {recursive: true, mode: 0o700})
  if (!swept) {
    swept = true
    void clearDeadRuns(root)
  }
  return own
}

/**
 * A run killed (SIGKILL, a power cut) leaves its folder and maybe masters in it (each ends itself after a
 * minute without a session): they are asked to exit, and the folder removed. A folder whose pid lives is
 * left alone (another run's, or a pid reused: nothing of its is touched).
 */
async function clearDeadRuns(root: string): Promise<void> {
  let names: string[]
  try {
    names = readdirSync(root)
  } catch {
    return
  }
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid || isAlive(Number(name))) continue
    const folder = join(root, name)
    let sockets: string[] = []
    try {
      sockets = readdirSync(folder).filter((file) => /^[0-9a-f]{16}$/.test(file))
    } catch {
      continue
    }
    await Promise.all(sockets.map((socket) => execa('ssh', ['-o', `ControlPath=${join(folder, socket)}`, '-O', 'exit', 'mdplan-dead-run'], {reject: false, stdin: 'ignore', timeout: 5_000})))
    rmSync(folder, {recursive: true, force: true})
  }
}

/**
 * The user's own OpenSSH (keys, agent, ~/.ssh/config, jump hosts, known
 * hosts), never a password prompt (BatchMode). One master connection per
 * host is shared by every call (ControlMaster/ControlPath/ControlPersist),
 * its socket in this process's own folder (sshSocketsRoot). ssh joins its
 * arguments into one command line for the remote shell, so the script and
 * each argument are quoted here; the scripts are constant and their
 * arguments are a folder and a checked key.
 */
export function sshTransport(spec: HostSpec): SshTransport {
  const sockets = ownSockets()
  // Named by what reaches the host (its address, port and ssh_config): hosts alike share a master.
  const socket = join(sockets, createHash('sha256').update(`${spec.address}\0${spec.port ?? ''}\0${spec.config ?? ''}`).digest('hex').slice(0, 16))
  users.set(socket, (users.get(socket) ?? 0) + 1)
  openTransports++
  const common = [
    '-o', 'BatchMode=yes',
    '-o', `ControlPath=${socket}`,
    '-o', `ConnectTimeout=${Math.max(1, Math.min(10, Math.round(spec.leaseMs / 3000)))}`,
    '-o', 'ServerAliveInterval=5',
    '-o', 'ServerAliveCountMax=3',
    ...(spec.config ? ['-F', spec.config] : []),
    ...(spec.port ? ['-p', String(spec.port)] : [])
  ]
  const address = spec.address!
  let master: Promise<{ok: true} | {ok: false; reason: string}> | undefined
  let closed = false
  /** Every call still going when the transport closes is stopped with it. */
  const closing = new AbortController()

  const startMaster = async (): Promise<{ok: true} | {ok: false; reason: string}> => {
    const check = await execa('ssh', [...common, '-O', 'check', '--', address], {reject: false, stdin: 'ignore'})
    if (check.exitCode === 0) return {ok: true}
    // -f: backgrounded after login. Its output goes to a file, never a pipe: the master outlives this call,
    // and a pipe it held open would keep the call waiting as long as the master lives.
    const errors = join(sockets, `master-${process.pid}-${++masters}.err`)
    const started = await execa('ssh', [...common, '-o', 'ControlMaster=yes', '-o', 'ControlPersist=60', '-f', '-N', '--', address], {
      reject: false,
      stdin: 'ignore',
      stdout: 'ignore',
      stderr: {file: errors}
    })
    const text = await readFile(errors, 'utf8').catch(() => '')
    await rm(errors, {force: true})
    if (started.exitCode === 0) return {ok: true}
    return {ok: false, reason: text.trim().split('\n').at(-1) || `ssh exited with ${started.exitCode}`}
  }

  return {
    label: `${address}${spec.port ? `:${spec.port}` : ''}`,
    probe: ['ssh', ...(spec.config ? ['-F', spec.config] : []), ...(spec.port ? ['-p', String(spec.port)] : []), address, 'true'].join(' '),
    connect() {
      // Closed (the run ended): no new master; every call answers at once as stopped.
      if (closed) return Promise.resolve({ok: true})
      master ??= startMaster().then((result) => {
        if (!result.ok) master = undefined
        return result
      })
      return master
    },
    exec(script, args, options = {}) {
      if (closed) return stoppedCall()
      const command = ['sh', '-c', script, 'mdplan', ...args].map(shellQuote).join(' ')
      const signal = eitherSignal(options.signal, closing.signal)
      const call = remoteCall('ssh', [...common, '-o', 'ControlMaster=no', '--', address, command], {...options, signal})
      // A broken connection must reach a new master next time.
      void call.then((result) => {
        if (result.exitCode === sshUnreachable) master = undefined
      })
      return call
    },
    async close() {
      if (closed) return
      closed = true
      master = undefined
      closing.abort()
      openTransports--
      const left = (users.get(socket) ?? 1) - 1
      if (left > 0) users.set(socket, left)
      else {
        users.delete(socket)
        await endMaster(common, address, socket)
      }
      // The run's last host: its folder goes (a master another transport of it started, there, is ended above).
      if (openTransports === 0) rmSync(sockets, {recursive: true, force: true})
    }
  }
}

/**
 * `ssh -O exit`; then any master of this socket still there (its socket removed under it, so `-O exit` could
 * not reach it), found by its command line: only an ssh started with this very ControlPath is signalled.
 */
async function endMaster(common: readonly string[], address: string, socket: string): Promise<void> {
  if (existsSync(socket) && (await execa('ssh', [...common, '-O', 'exit', '--', address], {reject: false, stdin: 'ignore', timeout: 10_000})).exitCode === 0) return
  let pids: string[]
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name))
  } catch {
    return
  }
  for (const pid of pids) {
    let command: string
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
    } catch {
      continue
    }
    if (!command.includes(`ControlPath=${socket}\0`) || !command.includes('ControlMaster=yes')) continue
    try {
      process.kill(Number(pid), 'SIGTERM')
    } catch {
      // Gone meanwhile.
    }
  }
}

function stoppedCall(): PromiseLike<RemoteOutcome> {
  return Promise.resolve({exitCode: undefined, stdout: '', stderr: 'mdplan: the connection to the host was closed (the run ended)'})
}
