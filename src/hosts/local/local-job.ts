import {existsSync, readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {isProcess} from '../../process/process-groups.js'

/**
 * What a local job's folder says of it, read at once:
 * - `missing`: no folder, or a folder whose wrapper never started (the launch was cut short): start it under its key;
 * - `running`: its wrapper lives: follow it;
 * - `ended`: its exit status is written: collect it;
 * - `stopped`: Ctrl-C ended it (the folder is marked): it goes on from its session, under a new key;
 * - `dead`: it started and ended without an exit status (killed from outside, the machine restarted).
 */
export type LocalJobState = 'missing' | 'running' | 'ended' | 'stopped' | 'dead'

export function localJobState(folder: string): LocalJobState {
  if (exitStatus(folder) !== undefined) return 'ended'
  if (existsSync(join(folder, 'stopped'))) return 'stopped'
  if (!existsSync(join(folder, 'run'))) return 'missing'
  const pid = jobPid(folder)
  // The wrapper makes `run` and then writes its pid: a moment's gap, or a wrapper stopped in between.
  if (pid === undefined) return Date.now() - startedAt(folder) < 60_000 ? 'running' : 'dead'
  if (isProcess(pid, folder)) return 'running'
  // It may have written its exit status between the two looks.
  return exitStatus(folder) !== undefined ? 'ended' : 'dead'
}

/** The wrapper's pid (the job's process group), once it wrote it. */
export function jobPid(folder: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(folder, 'pid'), 'utf8').trim())
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

/** When the job's wrapper started (ms): its guard's time; now, if it has none. */
export function startedAt(folder: string): number {
  try {
    return statSync(join(folder, 'run')).mtimeMs
  } catch {
    return Date.now()
  }
}

/** The job's exit status, when written: an `rc` still empty (the wrapper is writing it, or died doing so) is not. */
export function exitStatus(folder: string): number | undefined {
  try {
    const text = readFileSync(join(folder, 'rc'), 'utf8').trim()
    return text === '' ? undefined : Number(text)
  } catch {
    return undefined
  }
}

/** When the job's exit status was written (ms), if it was. */
export function endedAt(folder: string): number | undefined {
  try {
    return statSync(join(folder, 'rc')).mtimeMs
  } catch {
    return undefined
  }
}
