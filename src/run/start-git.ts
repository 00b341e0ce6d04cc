import type {GitGuard} from '../git/git-guard.js'
import {createGitGuard} from '../git/git-guard.js'
import type {ExecState} from '../executor/exec-state.js'
import type {RunSetup} from './run-setup.js'

/**
 * The run's git guard (undefined outside a repository, said as a warning), once it has removed the worktrees
 * a crashed run left (keeping those of the agents about to resume).
 */
export async function startGit(setup: Pick<RunSetup, 'options' | 'plan' | 'file' | 'cwd' | 'root' | 'emit'>, state: ExecState): Promise<GitGuard | undefined> {
  const {emit} = setup
  const gitSetup = await createGitGuard({plan: setup.plan, planFile: setup.file, cwd: setup.cwd, strictScope: setup.options.strictScope ?? false, root: setup.root})
  const git = gitSetup.guard
  if (gitSetup.notice) emit({type: 'warning', message: gitSetup.notice})
  if (git) {
    const cleaned = await git.start((id) => state.table.rows.get(id)?.status === 'in_progress' && state.table.rows.get(id)?.agentId !== '')
    for (const message of cleaned) emit({type: 'warning', message})
  }
  return git
}
