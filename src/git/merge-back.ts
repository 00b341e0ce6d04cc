import type {Agent} from '../plan/types.js'
import {mergeWorktree} from './merge-worktree.js'
import {removeWorktree} from './remove-worktree.js'
import {commitMessage} from './commit-message.js'
import {shortSha} from './head-sha.js'
import type {CompletionGit, NotePatch} from './attempt-git.js'
import type {GuardContext} from './guard-context.js'

/** An isolated agent's branch merged into the tree (and its worktree removed). */
export async function mergeBack(context: GuardContext, agent: Agent, worktree: {path: string; branch: string}, succeeded: boolean): Promise<CompletionGit> {
  const {root, snapshots} = context
  const notes: NotePatch = {}
  const warnings: string[] = []
  if (!succeeded) return {notes, warnings}
  const wrote = snapshots.writing()
  const merged = await mergeWorktree({root, worktree: worktree.path, branch: worktree.branch, message: commitMessage(context.title, agent)}).finally(wrote)
  // The branch is kept so a person can resolve it by hand.
  if (!merged.ok) return {notes, warnings, fail: merged.reason}
  if (merged.cleared) warnings.push(`git: removed ${merged.cleared.join(', ')}, left by mdplan's own commit in a run that was killed`)
  if (context.commits(agent) && merged.workCommit) notes.commit = shortSha(merged.workCommit)
  const removed = await removeWorktree({root, path: worktree.path, branch: worktree.branch, deleteBranch: 'merged'})
  if (!removed.ok) warnings.push(`git: could not remove the worktree of ${agent.id}: ${removed.reason}`)
  return {notes, warnings}
}
