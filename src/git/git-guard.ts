import type {Agent, Plan} from '../plan/types.js'
import {gitRoot, type GitRoot} from './git-root.js'
import {notGitRepoMessage} from './is-git-repo.js'
import {isRunPlanFile} from './run-plan-file.js'
import {formatScopeReport} from './format-scope-report.js'
import {cleanOrphanWorktrees, formatCleanup} from './clean-orphan-worktrees.js'
import type {CompletionGit, LaunchGit} from './attempt-git.js'
import {createGuardContext} from './guard-context.js'
import {launchInGit} from './launch-in-git.js'
import {mergeBack} from './merge-back.js'
import {checkShared} from './check-shared.js'
import {holdWorktree} from './hold-worktree.js'
import {approveHeld} from './approve-held.js'

export type {CompletionGit, LaunchGit, NotePatch} from './attempt-git.js'

export interface GitGuard {
  /** Once, before any launch: remove worktrees a crashed run left (keeping those of agents about to resume, and those holding work for a review). */
  start(resuming: (agent: string) => boolean): Promise<string[]>
  /**
   * `earlier`: an earlier attempt may have left work in the tree, so its files count as this attempt's.
   * `reattach`: the attempt goes back to a job a dead run left (running, or ended): the files it changed since
   * its base are its own work, not news to warn of.
   */
  beforeLaunch(agent: Agent, notes: string, earlier?: boolean, reattach?: boolean): Promise<LaunchGit>
  /**
   * `endedAt`: when the agent's process ended (ms); a snapshot started since then can serve its check.
   * `hold`: a review gate holds its work (docs/review.md): checked, committed on its branch when isolated, not merged or committed into the tree.
   */
  afterCompletion(agent: Agent, succeeded: boolean, endedAt?: number, hold?: boolean): Promise<CompletionGit>
  /** A person approved the agent's held work: merge or commit it now, as its completion would have. */
  approve(agent: Agent): Promise<CompletionGit>
  /** Forget an attempt that ended without completing (snapshot, window). */
  abandon(agent: Agent): void
  /** mdplan is about to change the tree outside this guard (a remote job's work merged): call what it returns when done. */
  writing(): () => void
  /** Once, at the end: what changed that no agent declares, and what could not be attributed. */
  report(): string[]
}

/**
 * Git awareness for one run: a base commit and a snapshot at each launch, a
 * scope check (and optional commit, or worktree merge) at each completion.
 * Returns undefined, with the one line to print, outside a git repository.
 */
export async function createGitGuard(input: {
  plan: Plan
  planFile: string
  cwd: string
  strictScope: boolean
  /** `gitRoot(cwd)` already under way (a run starts it before parsing the plan, so git runs meanwhile). */
  root?: Promise<GitRoot | undefined>
}): Promise<{guard?: GitGuard; notice?: string}> {
  const location = await (input.root ?? gitRoot(input.cwd))
  if (!location) return {notice: notGitRepoMessage}
  const context = createGuardContext(input, location)
  const {root, slug, windows, snapshots, active} = context
  const {plan} = input

  const guard: GitGuard = {
    async start(resuming) {
      if (!plan.agents.some(context.isolated)) return []
      const result = await cleanOrphanWorktrees({root, slug, keep: resuming, agents: plan.agents.map((a) => a.id)})
      return formatCleanup(result)
    },

    beforeLaunch: (agent, notes, earlier = false, reattach = false) => launchInGit(context, agent, notes, earlier, reattach),

    async afterCompletion(agent, succeeded, endedAt, hold = false) {
      const entry = active.get(agent.id)
      active.delete(agent.id)
      if (!entry) return {notes: {}, warnings: []}

      if (entry.worktree) {
        try {
          return succeeded && hold ? await holdWorktree(context, agent, entry.worktree) : await mergeBack(context, agent, entry.worktree, succeeded)
        } finally {
          windows.finished(agent.id)
        }
      }

      // Its window stays open until its work is committed: an agent launched before then overlaps it, and
      // is not taken for the writer of the files the commit brings.
      const overlapping = windows.overlapping(agent.id)
      try {
        return await checkShared(context, agent, entry, {succeeded, endedAt, overlapping, hold})
      } finally {
        windows.finished(agent.id)
      }
    },

    approve: (agent) => approveHeld(context, agent),

    abandon(agent) {
      const entry = active.get(agent.id)
      if (entry?.snapshot || entry?.worktree) {
        windows.finished(agent.id)
        snapshots.touched(Date.now())
      }
      active.delete(agent.id)
    },

    writing() {
      return snapshots.writing()
    },

    report() {
      // Another plan's table, written by its own run in this repository meanwhile, is not an agent's change.
      return formatScopeReport([...context.undeclared].filter((path) => !isRunPlanFile(root, path)).sort(), context.unattributed)
    }
  }
  return {guard}
}
