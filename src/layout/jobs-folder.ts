import {dirname, join, resolve} from 'node:path'
import {planTarget} from '../store/plan-target.js'

/**
 * Where a plan's local jobs live: `.mdplan/local-jobs/` beside the plan (beside its target when it is a symlink), one
 * folder a job named by its key, whose names begin with the plan's own prefix (src/hosts/job-key.ts), so plans
 * of one folder share it without meeting. Apart from a container host's `.mdplan/jobs/`: a container job's `pid`
 * is a pid of the container's, never to be signalled here.
 */
export function jobsFolder(planFile: string): string {
  return join(dirname(resolve(planTarget(planFile))), '.mdplan', 'local-jobs')
}

/**
 * Where a plan's hosts keep their files in flight: a job's archive until it is sent, base bundles, result
 * bundles brought home until they are merged. Beside the plan's local jobs, in its `.mdplan/` (never the
 * system's temp folder): what a killed run left there is the plan's, and the next run removes it.
 */
export function hostFilesFolder(planFile: string): string {
  return join(dirname(resolve(planTarget(planFile))), '.mdplan', 'host-files')
}
