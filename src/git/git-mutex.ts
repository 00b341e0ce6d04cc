import {mkdirSync} from 'node:fs'
import {join} from 'node:path'
import lockfile from 'proper-lockfile'

/** Runs tasks one at a time, in the order they were queued. */
export interface Mutex {
  run<T>(task: () => Promise<T>): Promise<T>
}

/** A fresh queue. */
export function createMutex(): Mutex {
  let tail: Promise<unknown> = Promise.resolve()
  return {
    run<T>(task: () => Promise<T>): Promise<T> {
      const result = tail.then(task)
      // The next task waits for this one whether it worked or not.
      tail = result.catch(() => undefined)
      return result
    }
  }
}

/**
 * The queue every mdplan git write goes through by default: parallel
 * `git worktree add` races on `.git/config.lock`, and merges and commits move
 * HEAD and the index under each other.
 */
export const gitMutex: Mutex = createMutex()

/**
 * Run `task` (a git write that moves HEAD, the index or the main working tree, or `git worktree add`)
 * holding the repository's `.mdplan/git.lock` as well: two runs of two plans in one repository take
 * turns, as the agents of one run do, instead of moving HEAD under each other (`cannot lock ref
 * 'HEAD'`, a half-done merge's files left in the working tree). Refreshed while held; one a killed
 * process left is taken over once stale (10 s).
 */
export async function acrossProcesses<T>(root: string, task: () => Promise<T>): Promise<T> {
  const dir = join(root, '.mdplan')
  mkdirSync(dir, {recursive: true})
  const release = await lockfile.lock(dir, {
    lockfilePath: join(dir, 'git.lock'),
    realpath: false,
    stale: 10_000,
    retries: {forever: true, minTimeout: 10, maxTimeout: 100, factor: 1.3},
    // A lock lost mid-task (a very long git step taken over as stale) is not worth killing the run for.
    onCompromised: () => {}
  })
  try {
    return await task()
  } finally {
    await release().catch(() => undefined)
  }
}
