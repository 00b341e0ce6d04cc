import {mkdirSync} from 'node:fs'
import {readFile, rm} from 'node:fs/promises'
import {tmpdir, userInfo} from 'node:os'
import {join} from 'node:path'
import {execa} from 'execa'
import type {HostSpec} from '../host-spec.js'
import {shellQuote} from '../job-archive.js'
import {remoteCall, type RemoteCallOptions, type RemoteOutcome} from './remote-call.js'

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
 * The user's own OpenSSH (keys, agent, ~/.ssh/config, jump hosts, known
 * hosts), never a password prompt (BatchMode). One master connection per
 * host is shared by every call (ControlMaster/ControlPath/ControlPersist).
 * ssh joins its arguments into one command line for the remote shell, so
 * the script and each argument are quoted here; the scripts are constant
 * and their arguments are a folder and a checked key.
 */
export function sshTransport(spec: HostSpec): SshTransport {
  const sockets = join(tmpdir(), `mdplan-ssh-${userInfo().uid}`)
  mkdirSync(sockets, {recursive: true, mode: 0o700})
  const common = [
    '-o', 'BatchMode=yes',
    '-o', `ControlPath=${join(sockets, '%C')}`,
    '-o', `ConnectTimeout=${Math.max(1, Math.min(10, Math.round(spec.leaseMs / 3000)))}`,
    '-o', 'ServerAliveInterval=5',
    '-o', 'ServerAliveCountMax=3',
    ...(spec.config ? ['-F', spec.config] : []),
    ...(spec.port ? ['-p', String(spec.port)] : [])
  ]
  const address = spec.address!
  let master: Promise<{ok: true} | {ok: false; reason: string}> | undefined

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
      master ??= startMaster().then((result) => {
        if (!result.ok) master = undefined
        return result
      })
      return master
    },
    exec(script, args, options = {}) {
      const command = ['sh', '-c', script, 'mdplan', ...args].map(shellQuote).join(' ')
      const call = remoteCall('ssh', [...common, '-o', 'ControlMaster=no', '--', address, command], options)
      // A broken connection must reach a new master next time.
      void call.then((result) => {
        if (result.exitCode === sshUnreachable) master = undefined
      })
      return call
    },
    async close() {
      master = undefined
      await execa('ssh', [...common, '-O', 'exit', '--', address], {reject: false, stdin: 'ignore'})
    }
  }
}
