import {appendFileSync, readFileSync, rmSync} from 'node:fs'
import {dirname} from 'node:path'
import {isAlive} from '../store/is-alive.js'
import {makeDir} from '../util/make-dir.js'

/** A live agent process group: its leader's pid and the kernel's start time for it (so a reused pid is never mistaken for it). */
export interface ProcessRecord {
  pid: number
  start: string
  /** A spawn helper's: the mdplan it launches for. */
  parent?: number
}

/**
 * The agents' process groups of one run, kept in a small file while they live.
 * Agents run in their own process groups (so a timeout can kill a whole tree),
 * which also means a SIGKILL of mdplan leaves them running: the next run reads
 * this file and ends them before it resumes or relaunches their rows.
 *
 * An append-only log: `+pid start` when an agent exists, `-pid` when it ended,
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
}

/** What a log holds. A torn last line is ignored. */
function readRecords(file: string): Records {
  const live = new Map<number, ProcessRecord>()
  const helpers = new Map<number, ProcessRecord>()
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const added = /^([+h])(\d+) (\d*)(?: (\d+))?$/.exec(line)
    if (added) (added[1] === 'h' ? helpers : live).set(Number(added[2]), {pid: Number(added[2]), start: added[3]!, parent: Number(added[4]) || undefined})
    const removed = /^-(\d+)$/.exec(line)
    if (removed) live.delete(Number(removed[1]))
  }
  return {groups: [...live.values()], helpers: [...helpers.values()]}
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

/**
 * End the process groups a killed run left in `file` (still alive and still
 * the same processes), then remove the file. Returns the pids it ended.
 *
 * A spawn helper of that run still alive may be in the middle of a fork: it
 * writes the agent down right after, then exits (its parent is gone, so it
 * forks nothing more). So the file is read for its agents only once every
 * such helper it names is gone; one that hangs (stopped) is killed after `helperMs`.
 */
export async function endRecordedGroups(file: string, graceMs = 2000, helperMs = 5000): Promise<number[]> {
  let records: Records
  try {
    const helpers = readRecords(file).helpers.filter((helper) => sameProcess(helper) && orphaned(helper))
    await waitGone(helpers, helperMs)
    for (const helper of helpers.filter(sameProcess)) signalProcess(helper.pid, 'SIGKILL')
    await waitGone(helpers, 1000)
    records = readRecords(file)
  } catch {
    return []
  }
  const live = records.groups.filter(sameProcess)
  for (const record of live) signalGroup(record.pid, 'SIGTERM')
  await waitGone(live, graceMs)
  for (const record of live) signalGroup(record.pid, 'SIGKILL')
  rmSync(file, {force: true})
  return live.map((record) => record.pid)
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
