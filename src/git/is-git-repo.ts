import {runGit} from './run-git.js'

/** The one line the executor prints when the plan is not in a git repository. */
export const notGitRepoMessage = 'git: not a git repository, skipping scope checks, worktrees and commits'

/** Whether `cwd` is inside a git working tree (a bare repository or a missing folder is not). */
export async function isGitRepo(cwd: string): Promise<boolean> {
  const result = await runGit(cwd, ['rev-parse', '--is-inside-work-tree'], {retryOnLock: false})
  return result.ok && result.stdout.trim() === 'true'
}
