import {readdir, rm} from 'node:fs/promises'
import {join, relative, sep} from 'node:path'
import {acrossProcesses, gitMutex, type Mutex} from './git-mutex.js'
import {canonicalPath, listWorktrees} from './list-worktrees.js'
import {removeWorktree} from './remove-worktree.js'
import {runGit, splitNul} from './run-git.js'
import {worktreeNames} from '../layout/worktree-names.js'
import {plural} from '../util/plural.js'

export interface CleanOrphansInput {
  root: string
  /** `planSlug(planFile)`: only this plan's worktrees are looked at. */
  slug: string
  /** Agents whose worktree must stay: those `in_progress` that will be resumed. */
  keep: (agent: string) => boolean
  /** The plan's agent IDs, to map folder names back to IDs (they differ only for IDs unsafe in a ref). */
  agents?: readonly string[]
  mutex?: Mutex
}

export interface CleanOrphansResult {
  /** Worktrees (registered or half made) that were removed. */
  removed: Array<{agent: string; path: string}>
  /** Branches deleted because the main tree already holds their commits. */
  branchesDeleted: string[]
  /** Branches left because they hold work that was never merged. */
  branchesKept: string[]
  failed: Array<{path: string; reason: string}>
}

/**
 * At the start of a run: remove this plan's worktrees left by a crashed run
 * (a SIGKILL skips every clean-up), except those of agents about to resume,
 * then forget stale registrations and delete orphan branches that are merged.
 */
export async function cleanOrphanWorktrees(input: CleanOrphansInput): Promise<CleanOrphansResult> {
  const mutex = input.mutex ?? gitMutex
  const result: CleanOrphansResult = {removed: [], branchesDeleted: [], branchesKept: [], failed: []}
  const planDir = worktreeNames(input.root, input.slug, '_').planDir
  const agentOf = (name: string) => input.agents?.find((id) => worktreeNames(input.root, input.slug, id).name === name) ?? name
  await mutex.run(() => acrossProcesses(input.root, () => runGit(input.root, ['worktree', 'prune'])))

  const within = `${await canonicalPath(planDir)}${sep}`
  const registered = new Set<string>()
  const liveBranches = new Set<string>()
  for (const entry of await listWorktrees(input.root)) {
    const path = await canonicalPath(entry.path)
    if (!path.startsWith(within)) continue
    const name = relative(within, path).split(sep)[0]!
    registered.add(name)
    const agent = agentOf(name)
    if (input.keep(agent)) {
      if (entry.branch) liveBranches.add(entry.branch.replace(/^refs\/heads\//, ''))
      continue
    }
    const removed = await removeWorktree({root: input.root, path: entry.path, deleteBranch: 'no', mutex})
    if (removed.ok) result.removed.push({agent, path: entry.path})
    else result.failed.push({path: entry.path, reason: removed.reason})
  }

  // Folders git never registered: a `worktree add` killed before it wrote its registration.
  const folders = await readdir(planDir).catch(() => [] as string[])
  for (const name of folders) {
    if (registered.has(name) || input.keep(agentOf(name))) continue
    const path = join(planDir, name)
    await rm(path, {recursive: true, force: true})
    result.removed.push({agent: agentOf(name), path})
  }

  const refs = await runGit(input.root, ['for-each-ref', '--format=%(refname:short)%00', `refs/heads/mdplan/${input.slug}/`])
  for (const line of splitNul(refs.stdout)) {
    const branch = line.trim()
    if (branch === '' || liveBranches.has(branch)) continue
    if (input.keep(agentOf(branch.slice(`mdplan/${input.slug}/`.length)))) continue
    const deleted = await mutex.run(() => acrossProcesses(input.root, () => runGit(input.root, ['branch', '-d', branch])))
    if (deleted.ok) result.branchesDeleted.push(branch)
    else result.branchesKept.push(branch)
  }
  return result
}

/** Lines for the executor to print (none when there was nothing to clean). */
export function formatCleanup(result: CleanOrphansResult): string[] {
  const lines: string[] = []
  if (result.removed.length > 0) lines.push(`git: removed ${plural(result.removed.length, 'worktree')} left by an earlier run (${result.removed.map((r) => r.agent).join(', ')})`)
  if (result.branchesDeleted.length > 0) lines.push(`git: deleted merged branch${result.branchesDeleted.length === 1 ? '' : 'es'} ${result.branchesDeleted.join(', ')}`)
  if (result.branchesKept.length > 0) lines.push(`git: kept branch${result.branchesKept.length === 1 ? '' : 'es'} with unmerged work: ${result.branchesKept.join(', ')}`)
  for (const failure of result.failed) lines.push(`git: could not remove ${failure.path}: ${failure.reason}`)
  return lines
}
