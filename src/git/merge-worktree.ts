import {acrossProcesses, gitMutex, type Mutex} from './git-mutex.js'
import {headSha} from './head-sha.js'
import {identityArgs} from './identity-args.js'
import {mergeBranch} from './merge-branch.js'
import {gitReason, runGit} from './run-git.js'
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

  // An agent that ended on another branch, or on a detached HEAD, left its work there: that is what to merge.
  const current = await runGit(input.worktree, ['symbolic-ref', '-q', 'HEAD'])
  if (current.stdout.trim() !== `refs/heads/${input.branch}`) {
    const moved = await runGit(input.worktree, ['checkout', '-q', '-B', input.branch], {onStart: own.onStart})
    if (!moved.ok) return fail(gitReason(moved, 'git checkout'))
  }
  // In its own worktree everything that changed is the agent's: `add -A` is exact here.
  const added = await runGit(input.worktree, ['add', '-A'], {onStart: own.onStart})
  if (!added.ok) return fail(gitReason(added, 'git add'))
  let workCommit: string | undefined
  const staged = await runGit(input.worktree, ['diff', '--cached', '--quiet'])
  if (staged.exitCode === 1) {
    const committed = await runGit(input.worktree, [...identity, 'commit', '--quiet', '--no-verify', '-m', input.message], {onStart: own.onStart})
    if (!committed.ok) return fail(gitReason(committed, 'git commit'))
    workCommit = await headSha(input.worktree)
  } else if (!staged.ok) return fail(gitReason(staged, 'git diff'))

  const merged = await mergeBranch({root: input.root, branch: input.branch, message: input.message, identity, onStart: main.onStart})
  return merged.ok ? {...merged, ...(workCommit ? {workCommit} : {})} : merged
}
