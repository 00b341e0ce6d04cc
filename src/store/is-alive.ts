import {readFileSync} from 'node:fs'

/**
 * Whether a process with this pid runs on this host (EPERM: it does, it is
 * just not ours). A zombie does not: some containers' init never reaps
 * orphans, and a dead lock owner or agent must not look alive.
 */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat[stat.lastIndexOf(')') + 2] !== 'Z'
  } catch {
    return true
  }
}
