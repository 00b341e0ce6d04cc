import type {Agent} from '../plan/types.js'
import {createWorktree} from './create-worktree.js'
import {mergeBack} from './merge-back.js'
import {dirtyOwned} from './dirty-owned.js'
import {commitAgent} from './commit-agent.js'
import {commitMessage} from './commit-message.js'
import {shortSha} from './head-sha.js'
import type {CompletionGit, NotePatch} from './attempt-git.js'
import type {GuardContext} from './guard-context.js'

/**
 * A person approved an agent whose work a review gate held (docs/review.md): bring it in as its completion
 * would have. An isolated agent's branch is merged and its worktree removed (a worktree removed meanwhile is
 * made again from the kept branch first); a shared-tree agent with `commit: true` gets its own files
 * committed; otherwise the work is in the tree already and nothing is done. A merge conflict fails the agent,
 * as at any completion.
 */
export async function approveHeld(context: GuardContext, agent: Agent): Promise<CompletionGit> {
  const notes: NotePatch = {}
  const warnings: string[] = []
  if (context.isolated(agent)) {
    const worktree = await createWorktree({root: context.root, slug: context.slug, agent: agent.id})
    if (!worktree.ok) return {notes, warnings, fail: `worktree: ${worktree.reason}`}
    return mergeBack(context, agent, {path: worktree.path, branch: worktree.branch}, true)
  }
  if (!context.commits(agent)) return {notes, warnings}
  const paths = await dirtyOwned(context, agent.id)
  if (paths.length === 0) return {notes, warnings}
  const wrote = context.snapshots.writing()
  const commit = await commitAgent({root: context.root, paths, message: commitMessage(context.title, agent)}).finally(wrote)
  if (commit.cleared) warnings.push(`git: removed ${commit.cleared.join(', ')}, left by mdplan's own commit in a run that was killed`)
  if (!commit.ok) warnings.push(`git: could not commit the work of ${agent.id}: ${commit.reason}`)
  else if (commit.commit) notes.commit = shortSha(commit.commit)
  return {notes, warnings}
}
