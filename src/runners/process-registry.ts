import {appendFileSync, readFileSync, rmSync} from 'node:fs'
import {dirname} from 'node:path'
import {isAlive} from '../store/is-alive.js'
import {makeDir} from '../util/make-dir.js'

/** A live agent process group: its leader's pid and the kernel's start time for it (so a reused pid is never mistaken for it). */
export interface ProcessRecord {
  pid: number
  start: string
}

/**
 * The agents' process groups of one run, kept in a small file while they live.
 * Agents run in their own process groups (so a timeout can kill a whole tree),
 * which also means a SIGKILL of mdplan leaves them running: the next run reads
 * this file and ends them before it resumes or relaunches their rows.
 */
export class ProcessRegistry {
  readonly file: string
  #live = 0

  constructor(file: string) {
    this.file = file
  }

  // An append-only log (`+pid start` / `-pid`): one small append per event, no rename on the launch path.
  add(pid: number): void {
    this.#append(`+${pid} ${startTime(pid)}\n`)
    this.#live++
  }

  remove(pid: number): void {
    this.#live--
    if (this.#live === 0) rmSync(this.file, {force: true})
    else this.#append(`-${pid}\n`)
  }

  #append(line: string): void {
    try {
      if (this.#live === 0) makeDir(dirname(this.file))
      appendFileSync(this.file, line)
    } catch {
      // Losing this file only loses the clean-up after a crash; the run itself goes on.
    }
  }
}

/** The groups a log still holds: added and not removed. A torn last line is ignored. */
function readRecords(file: string): ProcessRecord[] {
  const live = new Map<number, ProcessRecord>()
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const added = /^\+(\d+) (\d*)$/.exec(line)
    if (added) live.set(Number(added[1]), {pid: Number(added[1]), start: added[2]!})
    const removed = /^-(\d+)$/.exec(line)
    if (removed) live.delete(Number(removed[1]))
  }
  return [...live.values()]
}

/**
 * End the process groups a killed run left in `file` (still alive and still
 * the same processes), then remove the file. Returns the pids it ended.
 */
export async function endRecordedGroups(file: string, graceMs = 2000): Promise<number[]> {
  let records: ProcessRecord[]
  try {
    records = readRecords(file)
  } catch {
    return []
  }
  const live = records.filter((record) => Number.isInteger(record.pid) && record.pid > 1 && isAlive(record.pid) && startTime(record.pid) === record.start)
  for (const record of live) signalGroup(record.pid, 'SIGTERM')
  const deadline = Date.now() + graceMs
  while (live.some((record) => isAlive(record.pid)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25))
  for (const record of live) signalGroup(record.pid, 'SIGKILL')
  rmSync(file, {force: true})
  return live.map((record) => record.pid)
}

/** Field 22 of `/proc/<pid>/stat` (start time in clock ticks since boot); '' where there is no /proc. */
function startTime(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? ''
  } catch {
    return ''
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    // Already gone.
  }
}
