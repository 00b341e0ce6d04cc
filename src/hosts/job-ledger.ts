import {readFileSync} from 'node:fs'
import {dirname} from 'node:path'
import {atomicWrite} from '../store/atomic-write.js'
import {makeDir} from '../util/make-dir.js'
import {jobLedgerFile} from '../layout/job-ledger-file.js'
import {getNote} from '../plan/notes.js'
import type {RowState} from '../store/table-state.js'
import type {HostSpec} from './host-spec.js'
import {localHostName} from './host-spec.js'
import {parseJobNote} from './job-key.js'

interface Entry {
  /** The host as it was declared when a job of the plan last went there: a host since removed from `hosts:` is still reached. */
  spec?: HostSpec
  /** Keys of the plan's jobs that may be there (a listing found them, a submit sent them). */
  keys: string[]
  /** Jobs of the plan may be there whose keys are not known (an older run's): the host is listed to find them. */
  unlisted?: boolean
  /** When a listing last found what is there (ISO): a launch the run log records before then is accounted for. */
  checked?: string
}

/**
 * The hosts that may hold a plan's jobs, and the keys known there, kept beside the plan
 * (`.mdplan/hosts/<plan file>.json`) so that every run and `mdplan clean` visit each of them, whatever the
 * plan says now: a host a job went to and no agent uses any more, a host that was down when a run ended
 * (its leftovers are swept by the next run that reaches it). A host is written down before the first job is
 * submitted there; a listing that finds nothing of the plan's there (beyond what its rows still need) leaves
 * it with no keys.
 */
export interface JobLedger {
  readonly file: string
  /** Every host named (local excluded). */
  names(): string[]
  /** The hosts that may hold jobs of the plan: a key known there, or keys not known. */
  pending(): string[]
  spec(name: string): HostSpec | undefined
  keys(name: string): readonly string[]
  /** When a listing last found what is there (ISO), if ever. */
  checked(name: string): string | undefined
  /** A job goes there (recorded on disk before it is submitted: a run killed right after still finds it). */
  submitting(spec: HostSpec, key: string): void
  /** Jobs of the plan may be there (named by a row, by the run log, or an older run's with no record): not written. */
  suspect(name: string, key?: string): void
  /** A listing of the host (started at `at`) found these of the plan's jobs left there: the rest are gone. */
  listed(name: string, left: readonly string[], at: string): void
  /** These jobs are confirmed gone. */
  gone(name: string, keys: readonly string[]): void
}

export function openJobLedger(planFile: string): JobLedger {
  const file = jobLedgerFile(planFile)
  const hosts = read(file)
  const entry = (name: string): Entry => {
    let found = hosts.get(name)
    if (!found) hosts.set(name, (found = {keys: []}))
    return found
  }
  const save = (): void => {
    const data = {v: 1, hosts: Object.fromEntries([...hosts].map(([name, value]) => [name, {...value, keys: [...new Set(value.keys)]}]))}
    try {
      makeDir(dirname(file))
      atomicWrite(file, Buffer.from(JSON.stringify(data, null, 1) + '\n'))
    } catch {
      // A ledger that cannot be written costs a later sweep its memory, never the run: the run log and the rows still name the jobs.
    }
  }
  return {
    file,
    names: () => [...hosts.keys()],
    pending: () => [...hosts].filter(([, value]) => value.keys.length > 0 || value.unlisted === true).map(([name]) => name),
    spec: (name) => hosts.get(name)?.spec,
    keys: (name) => hosts.get(name)?.keys ?? [],
    checked: (name) => hosts.get(name)?.checked,
    submitting(spec, key) {
      const found = entry(spec.name)
      // Written when the host becomes one to visit (or is reached another way): the keys themselves are in the
      // rows and the run log before any submit, so a launch costs no write here.
      const written = (found.keys.length > 0 || found.unlisted === true) && sameSpec(found.spec, spec)
      found.spec = spec
      if (!found.keys.includes(key)) found.keys.push(key)
      if (!written) save()
    },
    suspect(name, key) {
      if (name === localHostName) return
      const found = entry(name)
      if (key === undefined) found.unlisted = true
      else if (!found.keys.includes(key)) found.keys.push(key)
    },
    listed(name, left, at) {
      const found = entry(name)
      found.keys = [...left]
      delete found.unlisted
      found.checked = at
      save()
    },
    gone(name, keys) {
      const found = hosts.get(name)
      if (!found || !keys.some((key) => found.keys.includes(key))) return
      found.keys = found.keys.filter((key) => !keys.includes(key))
      save()
    }
  }
}

/**
 * What else says a host may hold the plan's jobs: the rows (`job:` and `work:` name a key; `host:` a host an
 * older run used, when the ledger has no record of it), and the run log's launches since each host was last
 * listed.
 */
export function suspectJobs(ledger: JobLedger, rows: Iterable<RowState>, launches: Iterable<{host?: string; job?: string; time: string}>): void {
  const known = new Set(ledger.names())
  for (const row of rows) {
    for (const note of ['job', 'work']) {
      const job = parseJobNote(getNote(row.notes, note))
      if (job && job.host !== localHostName) ledger.suspect(job.host, job.key)
    }
    const ran = getNote(row.notes, 'host')?.trim()
    if (ran && /^[A-Za-z][A-Za-z0-9_.-]*$/.test(ran) && ran !== localHostName && !known.has(ran)) ledger.suspect(ran)
  }
  for (const launch of launches) {
    if (!launch.host || !launch.job || launch.host === localHostName) continue
    const since = ledger.checked(launch.host)
    if (since === undefined || launch.time >= since) ledger.suspect(launch.host, launch.job)
  }
}

function read(file: string): Map<string, Entry> {
  const hosts = new Map<string, Entry>()
  let data: unknown
  try {
    data = JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    return hosts
  }
  const listed = (data as {hosts?: unknown}).hosts
  if (typeof listed !== 'object' || listed === null) return hosts
  for (const [name, value] of Object.entries(listed as Record<string, unknown>)) {
    if (typeof value !== 'object' || value === null) continue
    const raw = value as Partial<Entry>
    const keys = Array.isArray(raw.keys) ? raw.keys.filter((key): key is string => typeof key === 'string') : []
    const spec = typeof raw.spec === 'object' && raw.spec !== null && (raw.spec).name === name ? (raw.spec) : undefined
    hosts.set(name, {keys, ...(spec ? {spec} : {}), ...(raw.unlisted === true ? {unlisted: true} : {}), ...(typeof raw.checked === 'string' ? {checked: raw.checked} : {})})
  }
  return hosts
}

function sameSpec(a: HostSpec | undefined, b: HostSpec): boolean {
  return a !== undefined && JSON.stringify(a) === JSON.stringify(b)
}
