import {randomBytes} from 'node:crypto'
import type {LocalJobsConfig} from '../executor/exec-config.js'
import type {GitRoot} from '../git/git-root.js'
import {localHostName} from '../hosts/host-spec.js'
import {jobKey, jobKeyPrefix, jobSpace, parseJobNote} from '../hosts/job-key.js'
import {localJobs, type LocalJobs} from '../hosts/local-jobs.js'
import {planKey} from '../layout/plan-key.js'
import {getNote} from '../plan/notes.js'
import {olderJobKeys} from './older-job-keys.js'
import type {RowState} from '../store/table-state.js'

/**
 * The plan's local jobs for one run: their keys (the plan's key space, as a remote host's jobs have), and what
 * became of the jobs the rows a dead run left `in_progress` name, looked at before the first launch.
 */
export async function localJobsOf(
  file: string,
  root: Promise<GitRoot | undefined>,
  cwd: string,
  rows: Iterable<RowState>,
  /** Ends an agent's jobs on other hosts before a job of it starts here (HostRuntime.fence). */
  fence?: (job: {host: string; key: string}, signal?: AbortSignal) => Promise<string | undefined>
): Promise<{jobs: LocalJobs; config: LocalJobsConfig}> {
  const gitRoot = (await root)?.root
  const slug = planKey(file, gitRoot)
  const space = gitRoot === undefined ? slug : jobSpace(slug, gitRoot)
  const named: string[] = []
  for (const row of rows) {
    const job = row.status === 'in_progress' ? parseJobNote(getNote(row.notes, 'job')) : undefined
    if (job?.host === localHostName) named.push(job.key)
  }
  const prefix = jobKeyPrefix(space)
  // Keyed by the plan's real path (a run through a symlink and one through its target share it); older runs' keys too.
  const older = olderJobKeys(file, prefix, named)
  const jobs = localJobs({file, root: gitRoot ?? cwd, prefix, older, named, ...(fence ? {fence} : {})})
  return {
    jobs,
    config: {newKey: (agent, attempt) => jobKey(space, agent, attempt, randomBytes(3).toString('hex')), reattach: jobs.reattach, launchedAt: jobs.launchedAt}
  }
}
