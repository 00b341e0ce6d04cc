import fs from 'node:fs'
import {sleepSync} from '../util/sleep-sync.js'
import {tempPath} from './atomic-write.js'

/** A mutex this old was left by a writer that died holding it (it is held for microseconds). */
const staleMs = 1000

/** The mutex's path for a plan: `plan.md.write-lock`, a directory beside it. */
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
 * mdplan releases it by renaming it aside (a hidden temp name of its own) and
 * removing that off the event loop: on the ext4 disk (mounted `discard`) of
 * the bench machine an `rmdir` took 0.4 to 3 ms, as much as the fsync of a
 * 650 KB plan, where renaming the empty directory took about 10 µs.
 */
export function withWriteMutex<T>(file: string, critical: () => T): T {
  const mutex = writeMutexPath(file)
  for (;;) {
    try {
      fs.mkdirSync(mutex)
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
    release(mutex, file)
  }
}

/** Set aside mutexes not yet removed: the exit removes what is left (their names are this process's alone). */
const aside = new Set<string>()
let exitHook = false

/** Free the path at once (a rename), remove the directory later; an rmdir when the rename cannot be made. */
function release(mutex: string, file: string): void {
  // The plan's temp-file name: `cleanTempFiles` removes one a killed run left.
  const away = tempPath(file)
  try {
    fs.renameSync(mutex, away)
  } catch (error) {
    // Gone already (taken over as stale by another writer): there is nothing of ours to release.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    removeNow(mutex)
    return
  }
  aside.add(away)
  if (!exitHook) {
    exitHook = true
    process.on('exit', () => {
      for (const left of aside) removeNow(left)
    })
  }
  fs.rmdir(away, (error) => {
    if (error && error.code !== 'ENOENT') removeNow(away)
    aside.delete(away)
  })
}

function removeNow(dir: string): void {
  try {
    fs.rmdirSync(dir)
  } catch {
    fs.rmSync(dir, {recursive: true, force: true})
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
