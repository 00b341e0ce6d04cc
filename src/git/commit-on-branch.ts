import {headSha} from './head-sha.js'
import {gitReason, runGit} from './run-git.js'

/**
 * Commit what an agent left uncommitted in its own worktree, on its branch (`workCommit`: that commit, when
 * there was anything): the first half of a worktree's merge, and all of a review gate's hold (the work waits
 * on its branch, committed, for a person's approval). Callers hold the git mutex. `onStart` hears each
 * writing git's pid (a commit marker: see `withCommitMarker`).
 */
export async function commitOnBranch(input: {
  worktree: string
  branch: string
  message: string
  identity: string[]
  onStart?: (pid: number) => void
}): Promise<{ok: true; workCommit?: string} | {ok: false; reason: string}> {
  // An agent that ended on another branch, or on a detached HEAD, left its work there: that is what to merge.
  const current = await runGit(input.worktree, ['symbolic-ref', '-q', 'HEAD'])
  if (current.stdout.trim() !== `refs/heads/${input.branch}`) {
    const moved = await runGit(input.worktree, ['checkout', '-q', '-B', input.branch], {onStart: input.onStart})
    if (!moved.ok) return {ok: false, reason: gitReason(moved, 'git checkout')}
  }
  // In its own worktree everything that changed is the agent's: `add -A` is exact here.
  const added = await runGit(input.worktree, ['add', '-A'], {onStart: input.onStart})
  if (!added.ok) return {ok: false, reason: gitReason(added, 'git add')}
  const staged = await runGit(input.worktree, ['diff', '--cached', '--quiet'])
  if (staged.exitCode === 1) {
    const committed = await runGit(input.worktree, [...input.identity, 'commit', '--quiet', '--no-verify', '-m', input.message], {onStart: input.onStart})
    if (!committed.ok) return {ok: false, reason: gitReason(committed, 'git commit')}
    return {ok: true, workCommit: await headSha(input.worktree)}
  }
  if (!staged.ok) return {ok: false, reason: gitReason(staged, 'git diff')}
  return {ok: true}
}
