import {join} from 'node:path'
import type {Agent} from '../plan/types.js'
import {getNote} from '../plan/notes.js'
import {formatResumeConflicts, resumeConflicts} from './resume-conflicts.js'
import {createWorktree} from './create-worktree.js'
import {headSha, shortSha} from './head-sha.js'
import type {LaunchGit} from './attempt-git.js'
import type {ActiveAttempt, GuardContext} from './guard-context.js'

/**
 * An attempt's launch (GitGuard.beforeLaunch): its base commit, and its worktree (isolated) or its snapshot
 * and running window (a shared tree); a resumed attempt is warned of changes to its files since its base.
 */
export async function launchInGit(context: GuardContext, agent: Agent, notes: string, earlier: boolean, reattach: boolean): Promise<LaunchGit> {
  const {root, owners, ignore, windows, snapshots} = context
  const warnings: string[] = []
  const base = getNote(notes, 'base')
  if (base && !reattach) {
    const conflicts = await resumeConflicts({root, agent: agent.id, base, owners, ignore})
    const message = formatResumeConflicts(agent.id, conflicts)
    if (message) warnings.push(message)
  }
  const entry: ActiveAttempt = {}
  let cwd = context.cwd
  let baseSha: string | undefined
  if (context.isolated(agent)) {
    // A retry after a merge conflict starts over from the current HEAD, which holds the work it collided with.
    const fresh = /merge conflict/.test(notes)
    const worktree = await createWorktree({root, slug: context.slug, agent: agent.id, fresh})
    if (!worktree.ok) return {cwd, notes: {}, warnings, error: `worktree: ${worktree.reason}`}
    // Its work lands in this tree when it is merged: until then it overlaps every agent launched meanwhile.
    windows.launched(agent.id)
    entry.worktree = {path: worktree.path, branch: worktree.branch}
    cwd = join(worktree.path, context.prefix)
    baseSha = worktree.base
  } else {
    // The window opens at the launch, before the snapshot: agents finishing meanwhile overlap it.
    windows.launched(agent.id)
    const snapshot = await snapshots.take(snapshots.touchedAt)
    if (snapshot.ok) {
      entry.snapshot = snapshot.snapshot
      baseSha = snapshot.snapshot.head
    } else {
      warnings.push(`git: no snapshot for ${agent.id}, its scope is not checked: ${snapshot.reason}`)
    }
    // Not only when the row has a base: a run killed after the spawn but before the write recording the
    // base leaves none, and its agent's file, already in this snapshot, would not look changed.
    entry.resumed = earlier || base !== undefined
  }
  baseSha ??= await headSha(root)
  context.active.set(agent.id, entry)
  return {cwd, notes: baseSha ? {base: shortSha(baseSha)} : {}, warnings}
}
