import {gitMutex, type Mutex} from './git-mutex.js'
import {headSha} from './head-sha.js'
import {identityArgs} from './identity-args.js'
import {mergeBranch} from './merge-branch.js'
import {gitReason, runGit} from './run-git.js'

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
  return (input.mutex ?? gitMutex).run(() => merge(input))
}

async function merge(input: MergeWorktreeInput): Promise<MergeWorktreeResult> {
  const identity = await identityArgs(input.root)
  const fail = (reason: string, conflicts: string[] = []): MergeWorktreeResult => ({ok: false, reason, conflicts})

  // In its own worktree everything that changed is the agent's: `add -A` is exact here.
  const added = await runGit(input.worktree, ['add', '-A'])
  if (!added.ok) return fail(gitReason(added, 'git add'))
  let workCommit: string | undefined
  const staged = await runGit(input.worktree, ['diff', '--cached', '--quiet'])
  if (staged.exitCode === 1) {
    const committed = await runGit(input.worktree, [...identity, 'commit', '--quiet', '--no-verify', '-m', input.message])
    if (!committed.ok) return fail(gitReason(committed, 'git commit'))
    workCommit = await headSha(input.worktree)
  } else if (!staged.ok) return fail(gitReason(staged, 'git diff'))

  const merged = await mergeBranch({root: input.root, branch: input.branch, message: input.message, identity})
  return merged.ok ? {...merged, ...(workCommit ? {workCommit} : {})} : merged
}
