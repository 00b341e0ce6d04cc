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
