import type {JobRef} from './host.js'
import type {LaunchGit} from '../git/git-guard.js'
import {headSha, shortSha} from '../git/head-sha.js'
import {runGit} from '../git/run-git.js'
import type {RuntimeContext} from './runtime-context.js'

/** Fix a remote attempt's base commit (a rerun's recorded `base:`, else HEAD after its dependencies' merges). */
export async function prepareRemote(context: RuntimeContext, job: JobRef, notes: string): Promise<LaunchGit> {
  const {root, prefix} = context
  // A job that goes on in an earlier job's folder goes on from that job's base, as a rerun of the same job does.
  const recorded = job.reattach || job.work ? /(?:^|;\s*)base:\s*([0-9a-f]{4,40})/.exec(notes)?.[1] : undefined
  const resolved = recorded ? (await runGit(root, ['rev-parse', '--verify', '--quiet', `${recorded}^{commit}`])).stdout.trim() : undefined
  const base = resolved || (await headSha(root))
  if (!base) return {cwd: root, notes: {}, warnings: [], error: 'git: the repository has no commit yet to send to a host'}
  context.bases.set(job.key, base)
  if (!context.own(job.key)) context.older.set(job.key, job.host)
  const spec = context.specs.get(job.host)
  return {cwd: `${job.host}:${spec?.dir ?? '~/.mdplan'}/jobs/${job.work ?? job.key}/work/${prefix}`, notes: {base: shortSha(base)}, warnings: []}
}
