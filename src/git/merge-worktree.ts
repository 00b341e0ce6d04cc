import {acrossProcesses, gitMutex, type Mutex} from './git-mutex.js'
import {identityArgs} from './identity-args.js'
import {mergeBranch} from './merge-branch.js'
import {commitOnBranch} from './commit-on-branch.js'
import {withCommitMarker, type CommitMarker} from './with-commit-marker.js'

export interface MergeWorktreeInput {
  /** The main working tree's top folder: the branch is merged into whatever it has checked out. */
  root: string
  /** The agent's worktree folder. */
  worktree: string
  /** The agent's branch, `mdplan/<plan>/<agent>`. */
  branch: string
  /** `commitMessage(title, agent)`: for the agent's uncommitted work, committed on its branch first. */
  message: string
  mutex?: Mutex
}

export type MergeWorktreeResult =
  | {
      ok: true
      /** The commit made on the branch from uncommitted work, if there was any. */
      workCommit?: string
      /** HEAD of `root` after the merge. */
      head: string
      /** False when the branch had nothing the main tree lacked. */
      merged: boolean
      /** Stale git locks a killed run's commit or merge left, removed first (see `withCommitMarker`). */
      cleared?: string[]
    }
  | {
      ok: false
      reason: string
      /** The paths in conflict (empty when the merge failed for another reason). */
      conflicts: string[]
    }

/**
 * Bring a finished agent's work back: commit what it left uncommitted on its
 * branch, then merge the branch into the main working tree. A conflict aborts
 * the merge (the main tree is left as it was) and names the paths, so the
 * agent fails with them in its note.
 */
export async function mergeWorktree(input: MergeWorktreeInput): Promise<MergeWorktreeResult> {
  return (input.mutex ?? gitMutex).run(() =>
    acrossProcesses(input.root, async () => {
      // Each working tree has its own index and lock: the agent's commit is marked in its worktree, the merge in the main tree.
      const outer = await withCommitMarker(input.root, (main) => withCommitMarker(input.worktree, (own) => merge(input, own, main)))
      const cleared = [...outer.cleared, ...outer.result.cleared]
      const result = outer.result.result
      return result.ok && cleared.length > 0 ? {...result, cleared} : result
    })
  )
}

async function merge(input: MergeWorktreeInput, own: CommitMarker, main: CommitMarker): Promise<MergeWorktreeResult> {
  const identity = await identityArgs(input.root)
  const fail = (reason: string, conflicts: string[] = []): MergeWorktreeResult => ({ok: false, reason, conflicts})

  const committed = await commitOnBranch({worktree: input.worktree, branch: input.branch, message: input.message, identity, onStart: own.onStart})
  if (!committed.ok) return fail(committed.reason)
  const {workCommit} = committed

  const merged = await mergeBranch({root: input.root, branch: input.branch, message: input.message, identity, onStart: main.onStart})
  return merged.ok ? {...merged, ...(workCommit ? {workCommit} : {})} : merged
}
