import type {GitGuard} from './git-guard.js'

/** A change mdplan makes to the tree outside the guard (a remote job's work merged): no snapshot is taken halfway through it. */
export function gitWrite<T>(git: GitGuard | undefined, work: () => Promise<T>): Promise<T> {
  const done = git?.writing()
  return Promise.resolve()
    .then(work)
    .finally(() => done?.())
}
