import {existsSync} from 'node:fs'
import {mkdir, rm} from 'node:fs/promises'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import {fetchResult} from '../fetch-result.js'
import type {Collected, Host} from '../host.js'
import type {HostSpec} from '../host-spec.js'
import {hostBases} from '../host-bases.js'
import {isSafeKey} from '../job-key.js'
import {listScript, removeScript, resultScript} from '../job-scripts.js'
import {stopScript} from './stop-script.js'
import type {RemoteOutcome} from './remote-call.js'
import {sshPreflight} from './ssh-preflight.js'
import {runSshJob} from './ssh-run.js'
import {sshUnreachable, type SshTransport} from './ssh-transport.js'

/**
 * A host reached through a transport that runs the job scripts there (ssh).
 * Submit is idempotent by key; output is followed from a byte offset, so a
 * dropped connection resumes where it broke and a rerun replays from byte 0;
 * a host unreachable for longer than its lease makes the attempt `lost`.
 * A job's result bundle comes home with the end of its output, into a file
 * under `scratch` (the plan's `.mdplan/`), and waits there to be collected.
 */
export function remoteHost(spec: HostSpec, transport: SshTransport, scratch: string): Host {
  const dir = spec.dir ?? '~/.mdplan'
  const results = join(scratch, 'results')
  const resultFile = (key: string): string => join(results, `${checked(key)}.bundle`)
  const bases = hostBases()
  const {exec} = transport

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
  const soon = (): number => Date.now() - spec.leaseMs + 5000
  /** End the jobs and remove their folders there (and what of them came home); false when the host did not answer. */
  const remove = async (keys: readonly string[]): Promise<boolean> => {
    if (keys.length === 0) return true
    await Promise.all(keys.flatMap((key) => [rm(resultFile(key), {force: true}), rm(`${resultFile(key)}.part`, {force: true})]))
    // Confirmed only when the script ran to its end there: a sweep, a fence and clean list the host again otherwise.
    return (await reach(() => exec(removeScript, [dir, ...keys.map(checked)]), soon()))?.exitCode === 0
  }

  return {
    spec,

    async run(job, command) {
      await mkdir(results, {recursive: true})
      const work = job.work === undefined ? {} : {work: checked(job.work)}
      return runSshJob({
        spec,
        dir,
        transport,
        job: {...job, key: checked(job.key), ...work},
        command,
        cancel: (key) => remove([key]),
        stop: async (key) => void (await reach(() => exec(stopScript, [dir, key]), soon())),
        resultFile,
        bases,
        scratch
      })
    },

    async collect({key, root, branch, base}): Promise<Collected> {
      const file = resultFile(key)
      const fetching = `${file}.${process.pid}`
      try {
        // Brought home with the end of its output by this run (or a run before it that ended before collecting).
        if (existsSync(file)) return await fetchResult({root, file, key, branch, base})
        await mkdir(results, {recursive: true})
        const fetched = await reach(() => exec(resultScript, [dir, key], {stdoutFile: fetching}))
        if (!fetched) return {ok: false, reason: `host lost: ${spec.name} (its result could not be fetched)`}
        if (fetched.exitCode !== 0) return {ok: false, reason: `${spec.name}: the job ${key} has no result`}
        return await fetchResult({root, file: fetching, key, branch, base})
      } finally {
        await rm(file, {force: true})
        await rm(fetching, {force: true})
      }
    },

    async cancel(keys) {
      return remove(keys)
    },

    async list(prefix) {
      const listed = await reach(() => exec(listScript, [dir, prefix]), soon())
      if (!listed || listed.exitCode !== 0) return undefined
      return String(listed.stdout).split('\n').filter((key) => isSafeKey(key))
    },

    preflight: (executables, auth = []) => sshPreflight({spec, transport, dir, bases}, executables, auth),

    close: () => transport.close()
  }
}

function checked(key: string): string {
  if (!isSafeKey(key)) throw new Error(`not a job key: ${key}`)
  return key
}
