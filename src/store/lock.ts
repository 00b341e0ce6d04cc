import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import lockfile from 'proper-lockfile'
import {isAlive} from './is-alive.js'
import {planTarget} from './plan-target.js'
import {isStopped} from './is-stopped.js'
import {lockVerdict} from './lock-verdict.js'
import type {LockOwner} from './lock-verdict.js'

export interface RunLock {
  /** The `plan.md.lock` directory. */
  readonly path: string
  readonly owner: LockOwner
  /** Set when the lock was lost while held (its directory removed, or not refreshed in time). */
  readonly compromised: Error | undefined
  /** Look at the lock on disk now (before a launch): the error when it is lost, undefined while it is ours. */
  check(): Error | undefined
  release(): Promise<void>
}

export interface RunLockOptions {
  /** Milliseconds without a refresh after which another run may take the lock over (≥ 2000). */
  stale?: number
  /** Refresh interval in milliseconds (at most half of `stale`). */
  update?: number
  /** Told when the lock is lost while held; the default emits a process warning. Never throws. */
  onCompromised?: (error: Error) => void
  /** Lock this path itself, not the file a symlink there points at (its owner.json then names that file). */
  literal?: boolean
  /** With `literal`: the file the link pointed at when the plan was opened (it may have been replaced since). */
  linkTo?: string
}

/** Another live run holds the plan. The CLI maps it to exit code 3. */
export class LockHeldError extends Error {
  readonly code = 'ELOCKED'
  constructor(
    readonly planFile: string,
    readonly owner: LockOwner | undefined,
    /** Its owner lives on this host but is stopped (Ctrl-Z, SIGSTOP). */
    readonly stopped = false
  ) {
    const who = owner ? `pid ${owner.pid} on host ${owner.host} since ${owner.startedAt}` : 'another process (its owner.json is missing or unreadable)'
    const stop = owner ? `wait for it or stop it (kill ${owner.pid})` : 'wait for it or stop it'
    super(
      stopped && owner
        ? `${planFile} is being run by ${who}, and that process is stopped (Ctrl-Z or SIGSTOP): continue it with \`fg\` in its terminal or \`kill -CONT ${owner.pid}\`, or end it with \`kill ${owner.pid}; kill -CONT ${owner.pid}\`. A live run's lock is never taken over, however long it was stopped`
        : `${planFile} is being run by ${who}; ${stop}. If that process is gone, remove ${planFile}.lock`
    )
    this.name = 'LockHeldError'
  }
}

// proper-lockfile removes its lock with rmdir: make it recursive so the
// directory can hold owner.json.
const lockFs = {
  ...fs,
  rmdir: (target: string, callback: (error: NodeJS.ErrnoException | null) => void) => fs.rm(target, {recursive: true, force: true}, callback)
}

/** The stale window: options, else `MDPLAN_LOCK_STALE_MS` (tests shorten it), else 30 s; never under 2 s. */
function staleWindow(options: RunLockOptions): number {
  return Math.max(2000, options.stale ?? (Number(process.env.MDPLAN_LOCK_STALE_MS) || 30_000))
}

/**
 * Take the run lock of a plan: a `plan.md.lock` directory (made with mkdir, so
 * atomic) holding `owner.json` {pid, host, startedAt}, refreshed while held.
 * A lock already there is judged by `lockVerdict` before proper-lockfile
 * sees it (proper-lockfile alone would take over any lock not refreshed
 * within `stale`, a stopped run's too): taken over only when its owner is a
 * dead process on this host, or from another host and stale; otherwise
 * throws LockHeldError. While held, the lock is lost when its directory is
 * removed or replaced, or its owner.json no longer names this run.
 */
export async function acquireRunLock(file: string, options: RunLockOptions = {}): Promise<RunLock> {
  // A symlinked plan is locked where it is written: runs through the link and the target exclude each other.
  const target = options.linkTo ?? planTarget(file)
  const planFile = options.literal ? file : target
  const lockPath = `${planFile}.lock`
  const stale = staleWindow(options)
  const update = Math.min(options.update ?? stale / 3, stale / 2)
  let compromised: Error | undefined
  const lose = (error: Error): void => {
    if (compromised) return
    compromised = error
    try {
      if (options.onCompromised) options.onCompromised(error)
      else process.emitWarning(`${planFile}: the run lock was lost (${error.message}); another run may now write this plan`, 'MdplanLockWarning')
    } catch {
      // Losing the lock must not crash the run: it is reported, not thrown.
    }
  }
  const settings = {lockfilePath: lockPath, realpath: false, stale, update, retries: 0, fs: lockFs, onCompromised: lose}

  await judgeHeldLock(planFile, lockPath, stale)
  let release: () => Promise<void>
  try {
    release = await lockfile.lock(planFile, settings)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error
    // Another run made it between our look and our mkdir: judge it as well, once.
    await judgeHeldLock(planFile, lockPath, stale)
    try {
      release = await lockfile.lock(planFile, settings)
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code === 'ELOCKED') throw new LockHeldError(planFile, await readOwner(lockPath))
      throw again
    }
  }

  const owner: LockOwner = {pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString(), ...(target !== planFile ? {target} : {})}
  // proper-lockfile checks that the directory's mtime is still the one it set
  // (or it deems the lock compromised): adding a file changes it, so put it back.
  const {mtime} = await fs.promises.stat(lockPath)
  await fs.promises.writeFile(path.join(lockPath, 'owner.json'), JSON.stringify(owner) + '\n')
  await fs.promises.utimes(lockPath, mtime, mtime)
  let released = false
  // proper-lockfile watches the directory's mtime; a rewritten owner.json changes no mtime: watch it too.
  const check = (): Error | undefined => {
    if (compromised || released) return compromised
    const why = ownerChange(lockPath, owner)
    if (why) lose(Object.assign(new Error(why), {code: 'ECOMPROMISED'}))
    return compromised
  }
  const watch = setInterval(check, update)
  watch.unref()
  return {
    path: lockPath,
    owner,
    get compromised() {
      return compromised
    },
    check,
    async release() {
      if (released) return
      released = true
      clearInterval(watch)
      if (compromised) return
      await release()
    }
  }
}

/** Why the lock is no longer this owner's, read from the disk now; undefined while it is. */
function ownerChange(lockPath: string, owner: LockOwner): string | undefined {
  let text: string
  try {
    text = fs.readFileSync(path.join(lockPath, 'owner.json'), 'utf8')
  } catch {
    return fs.existsSync(lockPath) ? `${lockPath}/owner.json was removed` : `${lockPath} was removed`
  }
  try {
    const now = JSON.parse(text) as LockOwner
    if (now.pid === owner.pid && now.host === owner.host && now.startedAt === owner.startedAt) return undefined
    return `${lockPath}/owner.json now names pid ${now.pid} on host ${now.host}`
  } catch {
    return `${lockPath}/owner.json was changed`
  }
}

/** A lock already there: throw LockHeldError unless `lockVerdict` says to take it over (then remove it). */
async function judgeHeldLock(planFile: string, lockPath: string, staleMs: number): Promise<void> {
  let mtimeMs: number
  try {
    ;({mtimeMs} = await fs.promises.stat(lockPath))
  } catch {
    return
  }
  const owner = await readOwner(lockPath)
  const verdict = lockVerdict({owner, ageMs: Date.now() - mtimeMs, staleMs, ownerlessMs: ownerlessAfterMs, host: os.hostname(), isAlive, isStopped})
  if (verdict.kind !== 'take-over') throw new LockHeldError(planFile, owner, verdict.kind === 'stopped')
  // Its owner died without releasing it (SIGKILL, power loss), or while taking it: take it over now.
  await fs.promises.rm(lockPath, {recursive: true, force: true})
}

/** A lock with no owner.json older than this was left by a taker killed between its mkdir and its owner.json. */
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
