import {rm} from 'node:fs/promises'
import type {GitFailure} from './git-failure.js'
import {acrossProcesses, gitMutex, type Mutex} from './git-mutex.js'
import {canonicalPath, listWorktrees} from './list-worktrees.js'
import {gitReason, runGit} from './run-git.js'
import {worktreeNames} from '../layout/worktree-names.js'
import {makeDir} from '../util/make-dir.js'

export interface CreateWorktreeInput {
  /** The main working tree's top folder. */
  root: string
  /** `planSlug(planFile)`. */
  slug: string
  agent: string
  /** The commit to start from (default: HEAD of `root` now, i.e. after the merges of finished dependencies). */
  base?: string
  /**
   * Start over from `base` even when the agent's worktree or branch is left
   * from an earlier attempt. By default they are reused, so a resumed or
   * retried agent finds its earlier work.
   */
  fresh?: boolean
  mutex?: Mutex
}

export type CreateWorktreeResult =
  | {
      ok: true
      /** The folder the agent runs in. */
      path: string
      branch: string
      /** The commit the branch starts from (for a reused worktree or branch: where it left `base`'s line). */
      base: string
      /** An existing worktree was kept. */
      reused: boolean
    }
  | GitFailure

/**
 * Give an agent its own `git worktree` on `mdplan/<plan>/<agent>`. Serialized
 * with every other mdplan git write: parallel `worktree add` calls race on
 * `.git/config.lock`.
 */
export async function createWorktree(input: CreateWorktreeInput): Promise<CreateWorktreeResult> {
  return (input.mutex ?? gitMutex).run(() => acrossProcesses(input.root, () => create(input)))
}

async function create(input: CreateWorktreeInput): Promise<CreateWorktreeResult> {
  const names = worktreeNames(input.root, input.slug, input.agent)
  const resolved = await runGit(input.root, ['rev-parse', '--verify', '--quiet', `${input.base ?? 'HEAD'}^{commit}`])
  if (!resolved.ok) {
    return {ok: false, reason: input.base ? `git worktree: ${input.base} is not a commit` : 'git worktree: the repository has no commit yet to branch from'}
  }
  const base = resolved.stdout.trim()

  const wanted = await canonicalPath(names.path)
  const existing = await findWorktree(input.root, wanted)
  if (existing && !input.fresh) return {ok: true, path: names.path, branch: names.branch, base: await forkPoint(input.root, names.branch, base), reused: true}
  if (existing) {
    const removed = await runGit(input.root, ['worktree', 'remove', '--force', '--force', names.path])
    if (!removed.ok) return {ok: false, reason: gitReason(removed, 'git worktree remove')}
  }
  // A folder git does not know (a crash mid-add) would make `worktree add` refuse.
  await rm(names.path, {recursive: true, force: true})
  await runGit(input.root, ['worktree', 'prune'])

  const branchExists = (await runGit(input.root, ['rev-parse', '--verify', '--quiet', `refs/heads/${names.branch}`])).ok
  makeDir(names.planDir)
  const args = branchExists && !input.fresh
    ? ['worktree', 'add', names.path, names.branch]
    : ['worktree', 'add', '-B', names.branch, names.path, base]
  const added = await runGit(input.root, args)
  if (!added.ok) return {ok: false, reason: gitReason(added, 'git worktree add')}
  const start = branchExists && !input.fresh ? await forkPoint(input.root, names.branch, base) : base
  return {ok: true, path: names.path, branch: names.branch, base: start, reused: false}
}

// A kept branch started earlier than `base`: its base is where it left the main line.
async function forkPoint(root: string, branch: string, base: string): Promise<string> {
  const result = await runGit(root, ['merge-base', base, branch])
  return result.ok ? result.stdout.trim() : base
}

async function findWorktree(root: string, wanted: string): Promise<boolean> {
  for (const entry of await listWorktrees(root)) {
    if (entry.prunable === undefined && (await canonicalPath(entry.path)) === wanted) return true
  }
  return false
}

