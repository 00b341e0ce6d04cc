import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import lockfile from 'proper-lockfile'
import {isAlive} from './is-alive.js'
import {planTarget} from './plan-target.js'

export interface LockOwner {
  pid: number
  host: string
  /** ISO 8601. */
  startedAt: string
}

export interface RunLock {
  /** The `plan.md.lock` directory. */
  readonly path: string
  readonly owner: LockOwner
  /** Set when the lock was lost while held (its directory removed, or not refreshed in time). */
  readonly compromised: Error | undefined
  release(): Promise<void>
}

export interface RunLockOptions {
  /** Milliseconds without a refresh after which another run may take the lock over (≥ 2000). */
  stale?: number
  /** Refresh interval in milliseconds (at most half of `stale`). */
  update?: number
  /** Told when the lock is lost while held; the default emits a process warning. Never throws. */
  onCompromised?: (error: Error) => void
}

/** Another live run holds the plan. The CLI maps it to exit code 3. */
export class LockHeldError extends Error {
  readonly code = 'ELOCKED'
  constructor(
    readonly planFile: string,
    readonly owner: LockOwner | undefined
  ) {
    const who = owner ? `pid ${owner.pid} on host ${owner.host} since ${owner.startedAt}` : 'another process (its owner.json is missing or unreadable)'
    const stop = owner ? `wait for it or stop it (kill ${owner.pid})` : 'wait for it or stop it'
    super(`${planFile} is being run by ${who}; ${stop}. If that process is gone, remove ${planFile}.lock`)
    this.name = 'LockHeldError'
  }
}

// proper-lockfile removes its lock with rmdir: make it recursive so the
// directory can hold owner.json.
const lockFs = {
  ...fs,
  rmdir: (target: string, callback: (error: NodeJS.ErrnoException | null) => void) => fs.rm(target, {recursive: true, force: true}, callback)
}

/**
 * Take the run lock of a plan: a `plan.md.lock` directory (made with mkdir, so
 * atomic) holding `owner.json` {pid, host, startedAt}, refreshed while held.
 * Taken over at once when its owner is a dead process on this host, or when it
 * was not refreshed within `stale`; otherwise throws LockHeldError.
 */
export async function acquireRunLock(file: string, options: RunLockOptions = {}): Promise<RunLock> {
  // A symlinked plan is locked where it is written: runs through the link and the target exclude each other.
  const planFile = planTarget(file)
  const lockPath = `${planFile}.lock`
  const stale = Math.max(2000, options.stale ?? 30_000)
  const update = Math.min(options.update ?? stale / 3, stale / 2)
  let compromised: Error | undefined
  const settings = {
    lockfilePath: lockPath,
    realpath: false,
    stale,
    update,
    retries: 0,
    fs: lockFs,
    onCompromised: (error: Error) => {
      compromised = error
      try {
        if (options.onCompromised) options.onCompromised(error)
        else process.emitWarning(`${planFile}: the run lock was lost (${error.message}); another run may now write this plan`, 'MdplanLockWarning')
      } catch {
        // Losing the lock must not crash the run: it is reported, not thrown.
      }
    }
  }

  let release: () => Promise<void>
  try {
    release = await lockfile.lock(planFile, settings)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error
    const owner = await readOwner(lockPath)
    const abandoned = owner ? owner.host === os.hostname() && !isAlive(owner.pid) : await ownerless(lockPath)
    if (!abandoned) throw new LockHeldError(planFile, owner)
    // Its owner died without releasing it (SIGKILL, power loss), or while taking it: take it over now.
    await fs.promises.rm(lockPath, {recursive: true, force: true})
    try {
      release = await lockfile.lock(planFile, settings)
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code === 'ELOCKED') throw new LockHeldError(planFile, await readOwner(lockPath))
      throw again
    }
  }

  const owner: LockOwner = {pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString()}
  // proper-lockfile checks that the directory's mtime is still the one it set
  // (or it deems the lock compromised): adding a file changes it, so put it back.
  const {mtime} = await fs.promises.stat(lockPath)
  await fs.promises.writeFile(path.join(lockPath, 'owner.json'), JSON.stringify(owner) + '\n')
  await fs.promises.utimes(lockPath, mtime, mtime)
  let released = false
  return {
    path: lockPath,
    owner,
    get compromised() {
      return compromised
    },
    async release() {
      if (released) return
      released = true
      if (compromised) return
      await release()
    }
  }
}

/**
 * A lock with no owner.json although its directory is older than a live
 * owner ever leaves it so (it writes owner.json right after the mkdir): its
 * taker was killed in between, and nobody else would ever release it.
 */
async function ownerless(lockPath: string): Promise<boolean> {
  try {
    const {mtimeMs} = await fs.promises.stat(lockPath)
    return Date.now() - mtimeMs > ownerlessAfterMs
  } catch {
    return false
  }
}

const ownerlessAfterMs = 2000

/** The lock's owner.json; it is written just after the mkdir, so give a racing owner a moment. */
async function readOwner(lockPath: string): Promise<LockOwner | undefined> {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const owner = JSON.parse(await fs.promises.readFile(path.join(lockPath, 'owner.json'), 'utf8')) as LockOwner
      if (typeof owner.pid === 'number' && typeof owner.host === 'string') return owner
    } catch {
      // Not there yet, or half written.
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return undefined
}
