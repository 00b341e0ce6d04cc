import {rm} from 'node:fs/promises'
import type {GitFailure} from './git-failure.js'
import {acrossProcesses, gitMutex, type Mutex} from './git-mutex.js'
import {gitReason, runGit} from './run-git.js'

export interface RemoveWorktreeInput {
  root: string
  /** The worktree folder. */
  path: string
  /** Its branch: deleted when `deleteBranch` says so. */
  branch?: string
  /** `merged`: only if the main tree holds its commits (`branch -d`); `force`: always; default `merged`. */
  deleteBranch?: 'merged' | 'force' | 'no'
  mutex?: Mutex
}

export type RemoveWorktreeResult = {ok: true; branchDeleted: boolean} | GitFailure

/**
 * Remove a finished agent's worktree, even a dirty or locked one (`--force`
 * twice: a `worktree add` killed midway leaves its worktree locked), then
 * forget registrations whose folders are gone.
 */
export async function removeWorktree(input: RemoveWorktreeInput): Promise<RemoveWorktreeResult> {
  return (input.mutex ?? gitMutex).run(() => acrossProcesses(input.root, () => remove(input)))
}

async function remove(input: RemoveWorktreeInput): Promise<RemoveWorktreeResult> {
  const removed = await runGit(input.root, ['worktree', 'remove', '--force', '--force', input.path])
  // Not a worktree (any more): the folder may still be there, half made. Only ever delete inside `.mdplan/worktrees/`.
  if (/[\\/]\.mdplan[\\/]worktrees[\\/][^\\/]+[\\/][^\\/]+/.test(input.path)) await rm(input.path, {recursive: true, force: true})
  const pruned = await runGit(input.root, ['worktree', 'prune'])
  if (!pruned.ok) return {ok: false, reason: gitReason(pruned, 'git worktree prune')}
  let branchDeleted = false
  const mode = input.deleteBranch ?? 'merged'
  if (input.branch !== undefined && mode !== 'no') {
    const deleted = await runGit(input.root, ['branch', mode === 'force' ? '-D' : '-d', input.branch])
    branchDeleted = deleted.ok
  }
  if (!removed.ok && !/is not a working tree|not a working tree/i.test(removed.stderr)) {
    // The folder is gone and pruned anyway; say why remove complained only if it is still registered.
    const still = await runGit(input.root, ['worktree', 'list', '--porcelain'])
    if (still.stdout.includes(`worktree ${input.path}\n`)) return {ok: false, reason: gitReason(removed, 'git worktree remove')}
  }
  return {ok: true, branchDeleted}
}
