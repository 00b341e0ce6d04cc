import {readFileSync} from 'node:fs'

/** Grace between SIGTERM and SIGKILL when ending an agent's process tree. */
export const killGraceMs = 2000

/** Send `signal` to a whole process group; a group already gone is not an error. */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal)
    return true
  } catch {
    // ESRCH: the whole group is already gone.
    return false
  }
}

/** End a process group: SIGTERM now, SIGKILL after the grace if anything of it is left. */
export function endGroup(pid: number): void {
  if (!signalGroup(pid, 'SIGTERM')) return
  setTimeout(() => signalGroup(pid, 'SIGKILL'), killGraceMs).unref()
}

/** End a process group and wait until no process of it is left (SIGKILL after the grace): confirmed ended. */
export async function endGroupConfirmed(pid: number, graceMs = killGraceMs): Promise<void> {
  if (!signalGroup(pid, 'SIGTERM')) return
  const deadline = Date.now() + graceMs
  while (signalGroup(pid, 0)) {
    if (Date.now() >= deadline) signalGroup(pid, 'SIGKILL')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/**
 * Whether process `pid` lives and is the one meant: its command line holds `mark` (a job's folder), so a pid the
 * system gave to another process since is not taken for it. Without /proc, whether the pid lives.
 */
export function isProcess(pid: number, mark: string): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(mark)
  } catch {
    return true
  }
}

// Process groups of this run's agents still alive: a crash or `process.exit` of mdplan ends them (a second
// Ctrl-C must stop the agents too). Only a SIGKILL of mdplan, or the machine's end, leaves them, and the next
// run finds a local job's by its key.
const liveGroups = new Set<number>()
let exitHookInstalled = false

/** Keep `pid`'s group on the list the exit hook ends; `forget` once it ended or is handed over (a lost lock). */
export function trackGroup(pid: number): {forget: () => void} {
  liveGroups.add(pid)
  if (!exitHookInstalled) {
    exitHookInstalled = true
    process.once('exit', () => {
      for (const group of liveGroups) signalGroup(group, 'SIGKILL')
    })
  }
  return {forget: () => void liveGroups.delete(pid)}
}
