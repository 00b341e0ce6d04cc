import {appendFileSync, readFileSync, rmSync} from 'node:fs'
import {hostname} from 'node:os'
import {dirname} from 'node:path'
import {isAlive} from '../store/is-alive.js'
import {makeDir} from '../util/make-dir.js'

/** A live agent process group: its leader's pid and the kernel's start time for it (so a reused pid is never mistaken for it). */
export interface ProcessRecord {
  pid: number
  start: string
  /** A spawn helper's: the mdplan it launches for. */
  parent?: number
  /** The run that put it on record (the owner line before it); none in an older version's file. */
  owner?: Owner
}

/** A registry's owner line: the mdplan run that writes it. */
interface Owner {
  pid: number
  start: string
  host: string
}

/**
 * The agents' process groups of one run, kept in a small file while they live.
 * Agents run in their own process groups (so a timeout can kill a whole tree),
 * which also means a SIGKILL of mdplan leaves them running: the next run reads
 * this file and ends them before it resumes or relaunches their rows.
 *
 * An append-only log: `o<pid> <start> <host>` first, the mdplan run that owns
 * it (a rerun never ends the groups of a run that still lives, whatever file
 * it reads: the lock's rule); `+pid start` when an agent exists, `-pid` when it ended,
 * `h<pid> <start> <mdplan's pid>` for the spawn helper that forks them. The
 * `+` line is written by whoever forks, at once (the spawn helper, or
 * spawnProcess itself), never after an answer mdplan may not live to hear.
 * This object counts the launches under way, so the file is removed only when
 * none is: a launch asked for counts from before its message goes out until
 * its process is over.
 */
export class ProcessRegistry {
  readonly file: string
  #live = 0

  constructor(file: string) {
    this.file = file
  }

  /** A launch is about to be asked for: the file's folder exists before anyone appends to it. */
  begin(): void {
    if (this.#live === 0) {
      try {
        makeDir(dirname(this.file))
      } catch {
        // Losing this file only loses the clean-up after a crash; the run itself goes on.
      }
      append(this.file, `o${process.pid} ${startTime(process.pid)} ${hostname()}\n`)
    }
    this.#live++
  }

  /** That launch is over: its process `pid` ended, or it never started (undefined). */
  end(pid: number | undefined): void {
    this.#live--
    if (this.#live === 0) rmSync(this.file, {force: true})
    else if (pid !== undefined) append(this.file, `-${pid}\n`)
  }
}

/** Put a process that now exists on record (`+pid start`), in the page cache before anyone is told its pid. */
export function recordProcess(file: string, pid: number): void {
  append(file, `+${pid} ${startTime(pid)}\n`)
}

function append(file: string, line: string): void {
  try {
    appendFileSync(file, line)
  } catch {
    // Losing this file only loses the clean-up after a crash; the run itself goes on.
  }
}

interface Records {
  /** The agents' groups added and not removed. */
  groups: ProcessRecord[]
  /** Spawn helpers that wrote here. */
  helpers: ProcessRecord[]
  /** The run that wrote it last; none in a file an older version wrote. */
  owner?: Owner
}

/** What a log holds. A torn last line is ignored. */
function readRecords(file: string): Records {
  const live = new Map<number, ProcessRecord>()
  const helpers = new Map<number, ProcessRecord>()
  let owner: Records['owner']
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const run = /^o(\d+) (\d*) (\S+)$/.exec(line)
    if (run) owner = {pid: Number(run[1]), start: run[2]!, host: run[3]!}
    const added = /^([+h])(\d+) (\d*)(?: (\d+))?$/.exec(line)
    if (added) (added[1] === 'h' ? helpers : live).set(Number(added[2]), {pid: Number(added[2]), start: added[3]!, parent: Number(added[4]) || undefined, owner})
    const removed = /^-(\d+)$/.exec(line)
    if (removed) live.delete(Number(removed[1]))
  }
  return {groups: [...live.values()], helpers: [...helpers.values()], owner}
}

/** Still alive, and still the same process (not a reused pid). */
function sameProcess(record: ProcessRecord): boolean {
  return Number.isInteger(record.pid) && record.pid > 1 && isAlive(record.pid) && startTime(record.pid) === record.start
}

/**
 * A helper whose mdplan is gone (it was handed to another parent). One whose mdplan lives belongs to a run
 * that lost its lock and ends its own agents: it is that run's, not to be waited for or killed.
 */
function orphaned(helper: ProcessRecord): boolean {
  return helper.parent === undefined || statField(helper.pid, 1) !== String(helper.parent)
}

async function waitGone(records: ProcessRecord[], ms: number): Promise<void> {
  const deadline = Date.now() + ms
  while (records.some((record) => isAlive(record.pid)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25))
}

/** Whose a live group is, told from the process itself (a file an older version wrote names no owner). */
export type Belonging = 'ours' | 'theirs' | 'unknown'

export interface EndedGroups {
  /** The groups ended. */
  ended: number[]
  /** Live groups an older version put on record that may be this plan's and were not ended (refuse to run beside them). */
  unknown: number[]
  /** Live groups an older version put on record for another plan: left to its rerun. */
  theirs: number[]
  /** Live groups of a run that still lives: it ends them itself. */
  live: number[]
}

export interface EndOptions {
  graceMs?: number
  helperMs?: number
  /**
   * For a file with no owner line (an older version's, found under a name other plans may have
   * had too): whose each live group is. Without it every group of such a file is taken as ours.
   */
  belongs?: (pid: number) => Belonging
  /**
   * Found where an older version kept it: a file with an owner line there is
   * another plan's current registry (this plan's is elsewhere), never touched.
   */
  legacy?: boolean
}

/**
 * End the process groups a killed run left in `file` (still alive and still
 * the same processes), then remove the file.
 *
 * Each group is judged by the owner line it was put on record under: one
 * whose run still lives on this host (the lock's rule: a live run is never
 * taken over) is left to that run, which ends its own agents. One an older
 * version put on record (no owner line) may be another plan's (older keys
 * were shared): only those `belongs` says are ours are ended. The file stays
 * while anything not ended lives.
 *
 * A spawn helper of that run still alive may be in the middle of a fork: it
 * writes the agent down right after, then exits (its parent is gone, so it
 * forks nothing more). So the file is read for its agents only once every
 * such helper it names is gone; one that hangs (stopped) is killed after `helperMs`.
 */
export async function endRecordedGroups(file: string, options: EndOptions = {}): Promise<EndedGroups> {
  const {graceMs = 2000, helperMs = 5000} = options
  const none: EndedGroups = {ended: [], unknown: [], theirs: [], live: []}
  let records: Records
  try {
    const first = readRecords(file)
    // Where an older version kept it, a file a run of this version writes is another plan's registry: only
    // what an older version put on record before that run (the same name then) is looked at.
    if (options.legacy && !first.groups.some((record) => record.owner === undefined)) return none
    if (!(first.owner && liveOwner(first.owner))) {
      const helpers = first.helpers.filter((helper) => sameProcess(helper) && orphaned(helper))
      await waitGone(helpers, helperMs)
      for (const helper of helpers.filter(sameProcess)) signalProcess(helper.pid, 'SIGKILL')
      await waitGone(helpers, 1000)
    }
    records = readRecords(file)
  } catch {
    return none
  }
  const whose = (record: ProcessRecord): Belonging | 'live' | 'skip' => {
    if (record.owner === undefined) return options.belongs ? options.belongs(record.pid) : 'ours'
    // Another plan's run's (legacy), or another host's, whose pids mean nothing here (a plan on a shared disk).
    if (options.legacy || record.owner.host !== hostname()) return 'skip'
    return liveOwner(record.owner) ? 'live' : 'ours'
  }
  const sorted = records.groups.filter(sameProcess).map((record) => ({pid: record.pid, belongs: whose(record)}))
  const pids = (kind: string): number[] => sorted.filter((entry) => entry.belongs === kind).map((entry) => entry.pid)
  const ours = pids('ours').map((pid) => ({pid, start: ''}))
  for (const record of ours) signalGroup(record.pid, 'SIGTERM')
  await waitGone(ours, graceMs)
  for (const record of ours) signalGroup(record.pid, 'SIGKILL')
  const result = {ended: pids('ours'), unknown: pids('unknown'), theirs: pids('theirs'), live: pids('live')}
  // What is not ours stays on record for its own run; another plan's current registry is never removed.
  if (result.unknown.length + result.theirs.length + result.live.length + pids('skip').length === 0 && !(options.legacy && records.owner)) rmSync(file, {force: true})
  return result
}

/** The run that owns a file still lives: on this host, the same process (not a reused pid). */
function liveOwner(owner: Owner): boolean {
  return owner.host === hostname() && owner.pid !== process.pid && sameProcess({pid: owner.pid, start: owner.start})
}

/** Field 22 of `/proc/<pid>/stat` (start time in clock ticks since boot); '' where there is no /proc. */
function startTime(pid: number): string {
  return statField(pid, 19)
}

/** Field `index + 3` of `/proc/<pid>/stat` (1: the parent's pid), '' where there is none. */
function statField(pid: number, index: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[index] ?? ''
  } catch {
    return ''
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  signalProcess(-pid, signal)
}

function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal)
  } catch {
    // Already gone.
  }
}
