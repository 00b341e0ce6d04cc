import type {Diagnostic, Plan} from '../plan/types.js'
import {isRemote, type HostSpec} from './host-spec.js'
import {liveJobs, type LiveJob} from './live-jobs.js'

/**
 * The `in_progress` rows whose job is on a host the plan no longer declares
 * (`hosts:` edited, or deleted, while a run was dead): that job may still
 * run, and a run cannot reach it, so it must not launch the agent anywhere
 * else. `validate` and `run` say so at the row.
 */
export function undeclaredJobHosts(plan: Plan, hosts: ReadonlyMap<string, HostSpec>, jobs: readonly LiveJob[] = liveJobs(plan)): Diagnostic[] {
  return jobs.filter((job) => !isRemote(hosts.get(job.host))).map((job) => problem(job, plan.file))
}

function problem(job: LiveJob, file: string): Diagnostic {
  const reason =
    `agent ${job.agent} is in_progress with its job ${job.key} on host \`${job.host}\`, which the plan does not declare under \`hosts:\` (any more): ` +
    `the job may still run there, so ${job.agent} is not launched anywhere else. Declare \`${job.host}\` under \`hosts:\` again (the run then re-attaches to the job, ` +
    `or collects its result), or end the job there yourself (on an ssh host: kill the process group named in \`jobs/${job.key}/pid\` under the host's \`dir\`, ` +
    `\`~/.mdplan\` by default, then remove that folder) and set the row back to \`pending\``
  return {severity: 'error', rule: 'job-host-undeclared', reason, file, place: job.place}
}
