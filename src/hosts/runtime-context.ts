import type {Host} from './host.js'
import type {HostSpec} from './host-spec.js'
import {createHost} from './host-types.js'
import {hostFilesFolder, jobsFolder} from '../layout/jobs-folder.js'
import {jobKeyPrefix, parseJobKey} from './job-key.js'
import {cancelWhenBack} from './cancel-when-back.js'
import type {JobLedger} from './job-ledger.js'
import {localHostSpec} from './host-spec.js'

/**
 * What the parts of one run's HostRuntime (prepare, attach, check, sweep, fence) share: the hosts it reaches,
 * which of them answer, the keys that are this plan's, and the lost jobs it ends once their hosts are back.
 */
export interface RuntimeContext {
  root: string
  /** The plan's folder in the repository. */
  prefix: string
  slug: string
  /** The plan's title (its commits' messages name it). */
  title: string
  /** The hosts the plan declares. */
  specs: ReadonlyMap<string, HostSpec>
  ledger: JobLedger
  /** The beginning of this plan's keys (jobKeyPrefix of its space). */
  ownPrefix: string
  /** Whether a key is this plan's (of its own prefix, in the current form). */
  own: (key: string) => boolean
  /** Keys of the older form (`mdplan-<slug>-…`) this run attached to, by host: its rows named them, so they are this plan's. */
  older: Map<string, string>
  /** Each attempt's base commit, by key. */
  bases: Map<string, string>
  /** A host the plan no longer declares is reached as it was when a job went there. */
  specOf: (name: string) => HostSpec | undefined
  host: (name: string) => Host
  /** This machine, as the local engine sees it. */
  here: Host
  /** Hosts that did not answer, since when (ms): a sweep passes them by, a fence waits for them only up to their lease. */
  silent: Map<string, number>
  heard: (name: string) => void
  unheard: (name: string, since?: number) => void
  leaseOf: (name: string) => number
  /** Keys whose job this run saw end (a result, a stop, a job gone): nothing of theirs runs, only their folders wait for the sweep. */
  ended: Set<string>
  /** End a lost attempt's job once its host answers again (one reaper per key). */
  reap: (name: string, key: string) => void
  /** Stop the reapers, close the hosts. */
  close: () => Promise<void>
}

export function createRuntimeContext(input: {
  file: string
  specs: ReadonlyMap<string, HostSpec>
  root: string
  prefix: string
  slug: string
  title: string
  space: string
  ledger: JobLedger
  down?: Map<string, number>
}): RuntimeContext {
  const {root, ledger} = input
  const hosts = new Map<string, Host>()
  const ownPrefix = jobKeyPrefix(input.space)
  // The prefix names the slug with its length: a key that begins with it is this plan's (another plan's never does).
  const own = (key: string): boolean => key.startsWith(ownPrefix) && parseJobKey(key) !== undefined
  // Lost attempts' jobs, ended once their hosts answer again, for as long as the run lasts.
  const ending = new AbortController()
  const reapers: Array<Promise<void>> = []
  const specOf = (name: string): HostSpec | undefined => {
    const declared = input.specs.get(name)
    return declared && declared.type !== 'local' ? declared : ledger.spec(name)
  }
  const host = (name: string): Host => {
    let found = hosts.get(name)
    if (!found) {
      const spec = specOf(name)
      if (!spec || spec.type === 'local') throw new Error(`not a remote host: ${name}`)
      hosts.set(name, (found = createHost(spec, {root, jobs: jobsFolder(input.file), scratch: hostFilesFolder(input.file)})))
    }
    return found
  }
  const here = createHost(localHostSpec, {root, jobs: jobsFolder(input.file), scratch: hostFilesFolder(input.file)})
  const silent = input.down ?? new Map<string, number>()
  /** Keys a reaper is ending already (cancelWhenBack): one per key. */
  const reaping = new Set<string>()
  const reap = (name: string, key: string): void => {
    if (reaping.has(key) || specOf(name)?.type === 'slurm') return
    reaping.add(key)
    reapers.push(
      cancelWhenBack(host(name), key, ending.signal).then(() => {
        reaping.delete(key)
        if (!ending.signal.aborted) ledger.gone(name, [key])
      })
    )
  }
  return {
    root,
    prefix: input.prefix,
    slug: input.slug,
    title: input.title,
    specs: input.specs,
    ledger,
    ownPrefix,
    own,
    specOf,
    host,
    here,
    silent,
    reap,
    older: new Map(),
    bases: new Map(),
    heard: (name) => void silent.delete(name),
    unheard: (name, since = Date.now()) => void (silent.has(name) || silent.set(name, since)),
    leaseOf: (name) => specOf(name)?.leaseMs ?? 0,
    ended: new Set(),
    async close() {
      ending.abort()
      // Closing the hosts stops what their reapers still ask (a host that does not answer is not waited for).
      await Promise.all([...hosts.values()].map((h) => h.close()))
      await Promise.all(reapers)
    }
  }
}
