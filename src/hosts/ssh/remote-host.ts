import {createWriteStream} from 'node:fs'
import {rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import {DetachRequest} from '../detach-request.js'
import {fetchResult} from '../fetch-result.js'
import type {Collected, Host, HostJob, HostRun} from '../host.js'
import type {HostCommand} from '../../process/process-types.js'
import type {HostSpec} from '../host-spec.js'
import {hostBases, type HostBases} from '../host-bases.js'
import {jobArchive} from '../job-archive.js'
import {isSafeKey} from '../job-key.js'
import {loginCheckLimitMs} from '../../runners/login-check-limit.js'
import {followScript, listScript, removeScript, resultScript, submitScript} from '../job-scripts.js'
import {preflightScript} from '../preflight-script.js'
import {stopScript} from './stop-script.js'
import {lineSplitter} from '../../process/line-splitter.js'
import type {HostSaid} from '../remote-auth.js'
import type {RemoteOutcome} from './remote-call.js'
import {sshUnreachable, type SshTransport} from './ssh-transport.js'
import {makeDir} from '../../util/make-dir.js'

/** How long ssh takes to notice a dead connection (ServerAliveInterval × ServerAliveCountMax in ssh-transport.ts). */
const keepaliveMs = 15_000

/** Below this much free space in a host's job folder, preflight says so. */
const minFreeKb = 512 * 1024

/**
 * A host reached through a transport that runs the job scripts there (ssh).
 * Submit is idempotent by key; output is followed from a byte offset, so a
 * dropped connection resumes where it broke and a rerun replays from byte 0;
 * a host unreachable for longer than its lease makes the attempt `lost`.
 */
export function remoteHost(spec: HostSpec, transport: SshTransport): Host {
  const dir = spec.dir ?? '~/.mdplan'
  const results = new Map<string, Buffer>()
  const bases = hostBases()
  const {exec} = transport
  const checked = (key: string): string => {
    if (!isSafeKey(key)) throw new Error(`not a job key: ${key}`)
    return key
  }

  /** Call until the host answers (not ssh's 255), or the lease since `since` runs out. */
  const reach = async (call: () => PromiseLike<RemoteOutcome>, since = Date.now()): Promise<RemoteOutcome | undefined> => {
    for (let wait = 200; ; wait = Math.min(wait * 2, 2000)) {
      if ((await transport.connect()).ok) {
        const result = await call()
        if (result.exitCode !== sshUnreachable) return result
      }
      if (Date.now() - since > spec.leaseMs) return undefined
      await sleep(wait)
    }
  }

  return {
    spec,

    async run(job, command) {
      const stop = async (key: string): Promise<void> => void (await reach(() => exec(stopScript, [dir, key]), Date.now() - spec.leaseMs + 5000))
      const work = job.work === undefined ? {} : {work: checked(job.work)}
      return runJob({spec, dir, transport, job: {...job, key: checked(job.key), ...work}, command, cancel: (key) => this.cancel([key]), stop, results, bases})
    },

    async collect({key, root, branch, base}): Promise<Collected> {
      const file = join(tmpdir(), `${checked(key)}-${process.pid}.bundle`)
      try {
        const carried = results.get(key)
        results.delete(key)
        if (carried) {
          await writeFile(file, carried)
          return await fetchResult({root, file, key, branch, base})
        }
        const fetched = await reach(() => exec(resultScript, [dir, key], {stdoutFile: file}))
        if (!fetched) return {ok: false, reason: `host lost: ${spec.name} (its result could not be fetched)`}
        if (fetched.exitCode !== 0) return {ok: false, reason: `${spec.name}: the job ${key} has no result`}
        return await fetchResult({root, file, key, branch, base})
      } finally {
        await rm(file, {force: true})
      }
    },

    async cancel(keys) {
      if (keys.length === 0) return true
      const removed = await reach(() => exec(removeScript, [dir, ...keys.map(checked)]), Date.now() - spec.leaseMs + 5000)
      return removed?.exitCode === 0
    },

    async list(prefix) {
      const listed = await reach(() => exec(listScript, [dir, prefix]), Date.now() - spec.leaseMs + 5000)
      if (!listed || listed.exitCode !== 0) return undefined
      return String(listed.stdout).split('\n').filter((key) => isSafeKey(key))
    },

    async preflight(executables, auth = []) {
      const name = `host ${spec.name} (${transport.label})`
      const connected = await transport.connect()
      if (!connected.ok) return [`${name}: unreachable over ssh: ${connected.reason}; check that \`${transport.probe}\` works without a password prompt`]
      const limitMs = loginCheckLimitMs()
      const answer = await exec(preflightScript, [dir, String(Math.ceil(limitMs / 1000)), ...executables, '--', ...auth.flatMap((check) => check.words)])
      if (answer.exitCode !== 0) {
        const said = String(answer.stderr).trim().split('\n').at(-1)
        return [`${name}: the checks could not run (${said || (answer.exitCode === undefined ? 'ssh was stopped' : `ssh exited with ${answer.exitCode}`)}); check that \`${transport.probe}\` works`]
      }
      const problems: string[] = []
      const held: string[] = []
      const said = auth.map((): HostSaid & {facts: string[]; slow?: boolean} => ({facts: []}))
      for (const line of String(answer.stdout).split('\n')) {
        const [what, value] = [line.slice(0, line.indexOf(' ')), line.slice(line.indexOf(' ') + 1)]
        if (what === 'missing') problems.push(`${name}: \`${value}\` is not installed there; install it on ${transport.label} or run these agents on another host`)
        if (what === 'unwritable') problems.push(`${name}: cannot create the job folder ${value}; set \`dir:\` for the host to a writable folder`)
        const [index, ...rest] = value.split(' ')
        const check = said[Number(index)]
        if (what === 'auth' && check) check.answer = {exitCode: Number(rest[0]), stdout: decode(rest[1]), stderr: decode(rest[2])}
        if (what === 'fact' && check) check.facts.push(rest.join(' '))
        if (what === 'authslow' && check) check.slow = true
        if (what === 'base' && /^[0-9a-f]{40}$/.test(value)) held.push(value)
        if (what === 'disk' && Number(value) > 0 && Number(value) < minFreeKb) problems.push(`${name}: only ${Math.round(Number(value) / 1024)} MB free under ${dir}; free some space or set \`dir:\` elsewhere`)
      }
      auth.forEach((check, index) => {
        // A login check that never answered: nothing launches unconfirmed.
        const problem = said[index]!.slow ? check.slow(limitMs) : check.verdict(said[index]!)
        if (problem) problems.push(`${name}: ${problem}`)
      })
      bases.learn(held)
      return problems
    },

    close: () => transport.close()
  }
}

function decode(base64: string | undefined): string {
  return Buffer.from(base64 ?? '', 'base64').toString('utf8')
}

interface RunInput {
  spec: HostSpec
  dir: string
  transport: SshTransport
  job: HostJob
  command: HostCommand
  cancel: (key: string) => Promise<unknown>
  /** Ctrl-C's end: the job's processes ended, its folder (its clone, the agent's work) kept for the rerun (stop-script.ts). */
  stop: (key: string) => Promise<void>
  /** Result bundles that came home with the end of a job's output, by key. */
  results: Map<string, Buffer>
  /** What the host's cache holds: what of the base a submit must carry. */
  bases: HostBases
}

async function runJob({spec, dir, transport, job, command, cancel, stop: stopJob, results, bases}: RunInput): Promise<HostRun> {
  const base = {timedOut: false, interrupted: false, stdout: '', stderr: '', spawnFailed: false}
  if (job.signal?.aborted) return {...base, interrupted: true}
  makeDir(dirname(job.logFile))
  const log = createWriteStream(job.logFile, {flags: 'a'})
  const out: Buffer[] = []
  const lines = lineSplitter(command.onLine)
  const stop = new AbortController()
  let interrupted = false
  let timedOut = false
  const onAbort = (): void => {
    interrupted = true
    stop.abort()
  }
  job.signal?.addEventListener('abort', onAbort, {once: true})
  const timer = job.timeoutMs ? setTimeout(() => ((timedOut = true), stop.abort()), job.timeoutMs) : undefined
  let archive: Awaited<ReturnType<typeof jobArchive>> | undefined
  /** This submit holds the host's first turn (see HostBases.turn). */
  let turn = false
  let wholeBase = false
  let offset = 0
  let lastContact = Date.now()
  let phase: 'submit' | 'follow' = job.reattach ? 'follow' : 'submit'
  let submitted = false
  let attached = false
  const env: Record<string, string> = {...command.env}
  for (const name of spec.env) if (process.env[name] !== undefined) env[name] = process.env[name]!

  const finish = async (result: Partial<HostRun>): Promise<HostRun> => {
    if (timer) clearTimeout(timer)
    job.signal?.removeEventListener('abort', onAbort)
    lines.end()
    if (result.stderr) log.write(result.stderr)
    log.end()
    if (archive && 'dispose' in archive) await archive.dispose()
    if (turn) bases.release()
    return {...base, stdout: Buffer.concat(out).toString('utf8'), attached, ...result}
  }

  for (let wait = 200; ; ) {
    if (stop.signal.aborted) {
      // After a lost lock the job may be the new owner's: stop following it, leave it running.
      // Ctrl-C keeps the job's folder, as a local agent's files stay: the row still names the key, and the rerun goes on there.
      if (!DetachRequest.asked(job.signal)) await (timedOut ? cancel(job.key) : stopJob(job.key))
      return finish({interrupted, timedOut})
    }
    if (Date.now() - lastContact > spec.leaseMs) return finish({lost: true, error: `host lost: ${spec.name}`})
    const connected = await transport.connect()
    if (connected.ok) {
      // Submitting follows in the same call: one round trip per launch. A rerun first follows only (attach).
      if (phase === 'submit' && !archive) {
        turn ||= await bases.turn()
        // Stopped while it waited for the host's first base: nothing was sent, nothing is.
        if (stop.signal.aborted) continue
        archive = await jobArchive(job, command, env, wholeBase ? 'full' : bases.shipping(job.git!.base))
        if ('error' in archive) return finish({spawnFailed: true, error: archive.error})
      }
      const call =
        phase === 'submit' && archive && 'file' in archive
          ? transport.exec(submitScript + followScript, [dir, job.key, String(offset)], {inputFile: archive.file, signal: stop.signal})
          : transport.exec(followScript, [dir, job.key, String(offset)], {signal: stop.signal})
      // The answer to the submit comes first, while the job runs: the host's first base is there, others may go.
      let said = ''
      const hear = (chunk: Buffer): void => {
        said += chunk.toString('latin1')
        const taken = /^mdplan-job (submitted|exists)$/m.test(said)
        if (taken) {
          bases.learn([job.git!.base])
          turn = false
        }
        if (taken || said.length > 65_536) call.stderr?.off('data', hear)
      }
      if (phase === 'submit') call.stderr?.on('data', hear)
      call.stdout?.on('data', (chunk: Buffer) => {
        lastContact = Date.now()
        offset += chunk.length
        out.push(chunk)
        log.write(chunk)
        lines.push(chunk)
      })
      const answer = await call
      // A call that ended only now kept its connection until ssh's keepalive (5 s × 3) saw it break.
      lastContact = Math.max(lastContact, Date.now() - keepaliveMs)
      const stderr = String(answer.stderr ?? '')
      if (/^mdplan-job (submitted|exists)$/m.test(stderr)) {
        lastContact = Date.now()
        submitted = true
        attached ||= /^mdplan-job exists$/m.test(stderr)
        phase = 'follow'
      } else if (phase === 'submit' && /^mdplan-job bad-archive$/m.test(stderr)) {
        return finish({spawnFailed: true, error: `${spec.name}: could not unpack the job ${job.key} there (disk full?)`})
      } else if (phase === 'submit' && /^mdplan-job need-base$/m.test(stderr)) {
        // The cache lacks what the bundle was cut against (removed, or another repository's): ship the whole history once.
        const why = /^mdplan-job fetch: (.*)$/m.exec(stderr)?.[1]
        if (wholeBase) return finish({spawnFailed: true, error: `${spec.name}: could not store the base commit in ${dir}/cache.git${why ? `: ${why}` : ''}`})
        bases.forget()
        wholeBase = true
        if (archive && 'dispose' in archive) await archive.dispose()
        archive = undefined
        continue
      }
      const control = /(?:^|\n)mdplan-job (rc|lost|unknown|cancelled)(?: (\d+))?\s*$/.exec(stderr)
      if (control) {
        lastContact = Date.now()
        const before = stderr.slice(0, control.index + (control[0].startsWith('\n') ? 1 : 0)).replace(/^mdplan-job (submitted|exists)\n/m, '')
        if (control[1] === 'rc') {
          const marker = before.lastIndexOf('mdplan-job bundle\n')
          results.set(job.key, marker === -1 ? Buffer.alloc(0) : Buffer.from(before.slice(marker + 18), 'base64'))
          return finish({exitCode: Number(control[2]), stderr: marker === -1 ? before : before.slice(0, marker)})
        }
        // mdplan's own cancel ended it and was cut short (a second Ctrl-C): interrupted, not failed. Its leftovers
        // go, and a rerun submits it again under its key, as after one Ctrl-C (which removed the folder).
        if (control[1] === 'cancelled' && !submitted) {
          await cancel(job.key)
          phase = 'submit'
          continue
        }
        if (control[1] === 'lost' || control[1] === 'cancelled') return finish({signal: 'SIGKILL', stderr: before, error: `the job ${job.key} on ${spec.name} ended without a result`})
        // The host knows nothing of the key: a rerun submits it (under the same key), once.
        if (!submitted) {
          phase = 'submit'
          continue
        }
        return finish({spawnFailed: true, error: `the job ${job.key} vanished from ${spec.name}`})
      }
    }
    if (stop.signal.aborted) continue
    await sleep(wait, undefined, {signal: stop.signal}).catch(() => undefined)
    wait = Math.min(wait * 2, 2000)
  }
}
