import {readFileSync} from 'node:fs'

/** Whether a live process on this host is stopped (Ctrl-Z, SIGSTOP, a debugger): `T` or `t` in /proc/PID/stat. */
export function isStopped(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const state = stat[stat.lastIndexOf(')') + 2]
    return state === 'T' || state === 't'
  } catch {
    // No /proc (macOS): a stopped owner looks like any live one, and is never taken over either way.
    return false
  }
}
