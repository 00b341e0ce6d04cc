import {existsSync, realpathSync} from 'node:fs'
import {join, relative} from 'node:path'
import type {Agent, Plan} from '../plan/types.js'
import {getNote} from '../plan/notes.js'
import {gitRoot, type GitRoot} from './git-root.js'
import {notGitRepoMessage} from './is-git-repo.js'
import {ownershipMap, ownersOf} from './ownership-map.js'
import {runGit, splitNul} from './run-git.js'
import type {IgnoreOptions} from './ignored-path.js'
import {sharedSnapshots} from './shared-snapshots.js'
import {takeSnapshot, type Snapshot} from './take-snapshot.js'
import {changedSince} from './changed-since.js'
import {attributeChanges, type Attribution} from './attribute-changes.js'
import {runningWindows} from './running-windows.js'
import {formatScopeNote} from './format-scope-note.js'
import {isRunPlanFile} from './run-plan-file.js'
import {formatScopeReport} from './format-scope-report.js'
import {formatResumeConflicts, resumeConflicts} from './resume-conflicts.js'
import {createWorktree} from './create-worktree.js'
import {mergeWorktree} from './merge-worktree.js'
import {removeWorktree} from './remove-worktree.js'
import {cleanOrphanWorktrees, formatCleanup} from './clean-orphan-worktrees.js'
import {commitAgent} from './commit-agent.js'
import {commitMessage} from './commit-message.js'
import {headSha, shortSha} from './head-sha.js'
import {planSlug} from '../layout/worktree-names.js'
import {childPlanPath} from '../plan/child-plan-path.js'
import {withDeclaredBelow} from '../plan/declared-below.js'

/** Notes items to set (a string) or remove (undefined) on an agent's row. */
export type NotePatch = Record<string, string | undefined>

export interface LaunchGit {
  /** Where the agent runs: its worktree, or the run's folder. */
  cwd: string
  notes: NotePatch
  /** Things to tell the person before the agent goes on (files changed under it since its base). */
  warnings: string[]
  /** The worktree could not be made: the attempt fails with this reason. */
  error?: string
}

export interface CompletionGit {
  notes: NotePatch
  /** The agent must fail after all (a merge conflict, or `--strict-scope` and a violation). */
  fail?: string
  warnings: string[]
}

export interface GitGuard {
  /** Once, before any launch: remove worktrees a crashed run left (keeping those of agents about to resume). */
  start(resuming: (agent: string) => boolean): Promise<string[]>
  /**
   * `earlier`: an earlier attempt may have left work in the tree, so its files count as this attempt's.
   * `reattach`: the attempt goes back to a job a dead run left (running, or ended): the files it changed since
   * its base are its own work, not news to warn of.
   */
  beforeLaunch(agent: Agent, notes: string, earlier?: boolean, reattach?: boolean): Promise<LaunchGit>
  /** `endedAt`: when the agent's process ended (ms); a snapshot started since then can serve its check. */
  afterCompletion(agent: Agent, succeeded: boolean, endedAt?: number): Promise<CompletionGit>
  /** Forget an attempt that ended without completing (snapshot, window). */
  abandon(agent: Agent): void
  /** mdplan is about to change the tree outside this guard (a remote job's work merged): call what it returns when done. */
  writing(): () => void
  /** Once, at the end: what changed that no agent declares, and what could not be attributed. */
  report(): string[]
}

interface Active {
  snapshot?: Snapshot
  worktree?: {path: string; branch: string}
  /** An earlier attempt ran (the row had a base): its work on the agent's files is this attempt's too. */
  resumed?: boolean
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
  const {root, prefix} = location
  const {plan} = input
  const owners = ownershipMap({...plan, agents: withDeclaredBelow(plan, input.planFile)}, prefix)
  const slug = planSlug(input.planFile, root)
  // Child plans (agents whose definition names a plan) are written by their own runs, like the plan.
  // A child run is told the plans of its tree (its parent's, its siblings') in MDPLAN_TREE_PLANS.
  const tree = (process.env.MDPLAN_TREE_PLANS ?? '').split('\n').filter(Boolean)
  const children = [...plan.agents.map((agent) => childPlanPath(input.planFile, agent)), ...tree].filter((path): path is string => path !== undefined && existsSync(path))
  const ignore: IgnoreOptions = {planFile: relative(root, realpathSync(input.planFile)), extra: children.map((path) => relative(root, realpathSync(path)))}
  const windows = runningWindows()
  const active = new Map<string, Active>()
  const undeclared = new Set<string>()
  const unattributed: Attribution['unattributed'] = []
  const title = plan.title ?? slug
  const setting = (agent: Agent, key: 'isolation' | 'commit'): string | undefined =>
    agent.fields[key]?.value.trim().toLowerCase() ?? (key === 'isolation' ? plan.settings.isolation : plan.settings.commit?.toString())
  const isolated = (agent: Agent): boolean => setting(agent, 'isolation') === 'worktree'
  const commits = (agent: Agent): boolean => ['true', 'yes', 'on'].includes(setting(agent, 'commit') ?? '')

  // Launches made together share one snapshot, and a launch right after a check shares the check's: any
  // snapshot started since the tree last changed under no running agent (an agent checked, a commit) serves.
  // A check shares one only if it started after its agent ended (it must see its last write).
  const snapshots = sharedSnapshots(() => takeSnapshot(root, ignore))
  /** The agent's own files that differ from HEAD now. */
  const dirtyOwned = async (id: string): Promise<string[]> => {
    const declared = [...owners].filter(([, ids]) => ids.includes(id)).map(([path]) => path)
    if (declared.length === 0) return []
    const status = await runGit(root, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--', ...declared])
    if (!status.ok) return []
    return splitNul(status.stdout).map((entry) => entry.slice(3)).filter((path) => path !== '' && ownersOf(path, owners).includes(id))
  }

  const guard: GitGuard = {
    async start(resuming) {
      if (!plan.agents.some(isolated)) return []
      const result = await cleanOrphanWorktrees({root, slug, keep: resuming, agents: plan.agents.map((a) => a.id)})
      return formatCleanup(result)
    },

    async beforeLaunch(agent, notes, earlier = false, reattach = false) {
      const warnings: string[] = []
      const base = getNote(notes, 'base')
      if (base && !reattach) {
        const conflicts = await resumeConflicts({root, agent: agent.id, base, owners, ignore})
        const message = formatResumeConflicts(agent.id, conflicts)
        if (message) warnings.push(message)
      }
      const entry: Active = {}
      let cwd = input.cwd
      let baseSha: string | undefined
      if (isolated(agent)) {
        // A retry after a merge conflict starts over from the current HEAD, which holds the work it collided with.
        const fresh = /merge conflict/.test(notes)
        const worktree = await createWorktree({root, slug, agent: agent.id, fresh})
        if (!worktree.ok) return {cwd, notes: {}, warnings, error: `worktree: ${worktree.reason}`}
        // Its work lands in this tree when it is merged: until then it overlaps every agent launched meanwhile.
        windows.launched(agent.id)
        entry.worktree = {path: worktree.path, branch: worktree.branch}
        cwd = join(worktree.path, prefix)
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
      active.set(agent.id, entry)
      return {cwd, notes: baseSha ? {base: shortSha(baseSha)} : {}, warnings}
    },

    async afterCompletion(agent, succeeded, endedAt) {
      const entry = active.get(agent.id)
      active.delete(agent.id)
      if (!entry) return {notes: {}, warnings: []}

      if (entry.worktree) {
        try {
          return await mergeBack(agent, entry.worktree, succeeded)
        } finally {
          windows.finished(agent.id)
        }
      }

      // Its window stays open until its work is committed: an agent launched before then overlaps it, and
      // is not taken for the writer of the files the commit brings.
      const overlapping = windows.overlapping(agent.id)
      try {
        return await check(agent, entry, succeeded, endedAt, overlapping)
      } finally {
        windows.finished(agent.id)
      }
    },

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
      return formatScopeReport([...undeclared].filter((path) => !isRunPlanFile(root, path)).sort(), unattributed)
    }
  }

  /** An isolated agent's branch merged into the tree (and its worktree removed). */
  async function mergeBack(agent: Agent, worktree: {path: string; branch: string}, succeeded: boolean): Promise<CompletionGit> {
    const notes: NotePatch = {}
    const warnings: string[] = []
    if (!succeeded) return {notes, warnings}
    const wrote = snapshots.writing()
    const merged = await mergeWorktree({root, worktree: worktree.path, branch: worktree.branch, message: commitMessage(title, agent)}).finally(wrote)
    // The branch is kept so a person can resolve it by hand.
    if (!merged.ok) return {notes, warnings, fail: merged.reason}
    if (merged.cleared) warnings.push(`git: removed ${merged.cleared.join(', ')}, left by mdplan's own commit in a run that was killed`)
    if (commits(agent) && merged.workCommit) notes.commit = shortSha(merged.workCommit)
    const removed = await removeWorktree({root, path: worktree.path, branch: worktree.branch, deleteBranch: 'merged'})
    if (!removed.ok) warnings.push(`git: could not remove the worktree of ${agent.id}: ${removed.reason}`)
    return {notes, warnings}
  }

  /** What a shared-tree agent changed, against its files and the agents that overlapped it; its commit. */
  async function check(agent: Agent, entry: Active, succeeded: boolean, endedAt: number | undefined, overlapping: string[]): Promise<CompletionGit> {
    const notes: NotePatch = {}
    const warnings: string[] = []
    // It ended: a later launch's snapshot must have seen its last write.
    snapshots.touched(endedAt ?? Date.now())
    if (!entry.snapshot) return {notes, warnings}
    const changed = await changedSince(entry.snapshot, ignore, () => snapshots.take(endedAt ?? Date.now()))
    if (!changed.ok) {
      warnings.push(`git: could not check the scope of ${agent.id}: ${changed.reason}`)
      return {notes, warnings}
    }
    const attribution = attributeChanges({agent: agent.id, changed: changed.paths, owners, running: overlapping})
    for (const path of attribution.undeclared) undeclared.add(path)
    unattributed.push(...attribution.unattributed)
    const scope = formatScopeNote(attribution.violations)
    notes.scope = scope
    if (scope && input.strictScope && succeeded) return {notes, warnings, fail: `scope: ${scope}`}
    // A resumed or retried attempt's snapshot already holds the earlier attempt's work: commit that too.
    const earlier = succeeded && commits(agent) && entry.resumed ? await dirtyOwned(agent.id) : []
    const paths = [...new Set([...attribution.own, ...earlier])]
    if (succeeded && commits(agent) && paths.length > 0) {
      const wrote = snapshots.writing()
      const commit = await commitAgent({root, paths, message: commitMessage(title, agent)}).finally(wrote)
      if (commit.cleared) warnings.push(`git: removed ${commit.cleared.join(', ')}, left by mdplan's own commit in a run that was killed`)
      if (!commit.ok) warnings.push(`git: could not commit the work of ${agent.id}: ${commit.reason}`)
      else if (commit.commit) notes.commit = shortSha(commit.commit)
    }
    return {notes, warnings}
  }

  return {guard}
}
