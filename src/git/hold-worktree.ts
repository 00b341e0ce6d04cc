import {acrossProcesses, gitMutex} from './git-mutex.js'
import {commitOnBranch} from './commit-on-branch.js'
import {commitMessage} from './commit-message.js'
import {identityArgs} from './identity-args.js'
import {withCommitMarker} from './with-commit-marker.js'
import type {Agent} from '../plan/types.js'
import type {CompletionGit} from './attempt-git.js'
import type {GuardContext} from './guard-context.js'

/**
 * A review gate's hold of an isolated agent's work (docs/review.md): committed on its branch, in its worktree,
 * and not merged. Its worktree stays for the person to look at, and for the rerun a rejection asks for;
 * approval merges it (approveHeld).
 */
export async function holdWorktree(context: GuardContext, agent: Agent, worktree: {path: string; branch: string}): Promise<CompletionGit> {
  const {root} = context
  const wrote = context.snapshots.writing()
  const committed = await gitMutex
    .run(() =>
      acrossProcesses(root, async () => {
        const identity = await identityArgs(root)
        const marked = await withCommitMarker(worktree.path, (own) => commitOnBranch({worktree: worktree.path, branch: worktree.branch, message: commitMessage(context.title, agent), identity, onStart: own.onStart}))
        return marked.result
      })
    )
    .finally(wrote)
  if (!committed.ok) return {notes: {}, warnings: [], fail: committed.reason}
  return {notes: {}, warnings: []}
}
