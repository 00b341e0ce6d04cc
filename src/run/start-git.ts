import type {GitGuard} from '../git/git-guard.js'
import {createGitGuard} from '../git/git-guard.js'
import type {ExecState} from '../executor/exec-state.js'
import type {RunSetup} from './run-setup.js'
import {readReviewNote} from '../plan/review-note.js'
import {renderNotes} from '../executor/row-notes.js'

/**
 * The run's git guard (undefined outside a repository, said as a warning), once it has removed the worktrees
 * a crashed run left (keeping those of the agents about to resume, and those holding work for a review).
 */
export async function startGit(setup: Pick<RunSetup, 'options' | 'plan' | 'file' | 'cwd' | 'root' | 'emit'>, state: ExecState): Promise<GitGuard | undefined> {
  const {emit} = setup
  const gitSetup = await createGitGuard({plan: setup.plan, planFile: setup.file, cwd: setup.cwd, strictScope: setup.options.strictScope ?? false, root: setup.root})
  const git = gitSetup.guard
  if (gitSetup.notice) emit({type: 'warning', message: gitSetup.notice})
  if (git) {
    const cleaned = await git.start((id) => {
      const row = state.table.rows.get(id)
      // A worktree holding work for a review (waiting, approved but not merged yet, or sent back to be run again) stays.
      return (row?.status === 'in_progress' && row.agentId !== '') || (row?.notes.review !== undefined && readReviewNote(renderNotes(row.notes))?.state !== 'approved')
    })
    for (const message of cleaned) emit({type: 'warning', message})
  }
  return git
}
