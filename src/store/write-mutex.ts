import fs from 'node:fs'
import {sleepSync} from '../util/sleep-sync.js'

/** A mutex this old was left by a writer that died holding it (it is held for microseconds). */
const staleMs = 1000

/** The mutex's path for a plan: `plan.md.write-lock` beside it. */
export function writeMutexPath(file: string): string {
  return `${file}.write-lock`
}

/**
 * Run `critical` while holding the plan's write mutex. Every mdplan process
 * that writes a plan (a run, `mdplan answer`, `mdplan graph --write`) holds it
 * from its last check that the file is the one it read until its rename over
 * it, so none of them replaces another's write unseen: a rename can only be
 * checked for, not made conditional, in Node (no `renameat2`). Any tool that
 * saves a plan while it runs can take it the same way: `mkdir plan.md.write-lock`,
 * check, rename, `rmdir`. It is never held for longer than those steps; one
 * older than a second belonged to a writer that died, and is taken over.
 *
 * mdplan itself takes it as an empty file made with O_EXCL, and releases it
 * with an unlink: a directory and a file at one path exclude each other as two
 * directories do, but removing a directory frees its data block, and on the
 * bench machine's ext4 disk (mounted `discard`) that `rmdir` took 0.4 to 3 ms,
 * as much as the fsync of a 650 KB plan; the unlink of an empty file, 10 µs.
 */
export function withWriteMutex<T>(file: string, critical: () => T): T {
  const mutex = writeMutexPath(file)
  for (;;) {
    try {
      fs.closeSync(fs.openSync(mutex, 'wx'))
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    if (isStale(mutex)) fs.rmSync(mutex, {recursive: true, force: true})
    else sleepSync(1)
  }
  try {
    return critical()
  } finally {
    release(mutex)
  }
}

/** Unlink our file; never remove what is there instead (a directory: ours was taken over as stale, and that is another writer's). */
function release(mutex: string): void {
  try {
    fs.unlinkSync(mutex)
  } catch {
    // Gone already, or another writer's directory: nothing of ours is left to remove.
  }
}

function isStale(mutex: string): boolean {
  try {
    return Date.now() - fs.statSync(mutex).mtimeMs > staleMs
  } catch {
    // Released meanwhile: try again at once.
    return false
  }
}
