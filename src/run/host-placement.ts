import {randomBytes} from 'node:crypto'
import type {Agent} from '../plan/types.js'
import type {HostsConfig} from '../executor/exec-config.js'
import type {GitRoot} from '../git/git-root.js'
import {planKey} from '../layout/plan-key.js'
import type {HostRuntime} from '../hosts/host-runtime.js'
import {isRemote, localHostName, type HostSpec} from '../hosts/host-spec.js'
import {jobKey, jobSpace} from '../hosts/job-key.js'
import type {PlanHosts} from '../hosts/read-hosts.js'
import type {LiveJob} from '../hosts/live-jobs.js'
import {jobLaunchTimes} from '../hosts/job-launch-times.js'

/** Where a run's agents may go: the executor's placement, and what setup checks of it. */
export interface HostPlacement {
  config: HostsConfig
  runsHere: (agent: string) => boolean
  unplaceable: (agent: Agent) => string | undefined
  /** Remote hosts the launchable agents may use (their pools', and their live jobs' hosts). */
  used: Set<string>
  /** Whether an agent may run on a host (its pool, or a live job of it there). */
  onHost: (id: string, name: string) => boolean
  slug: string
  /** The plan's key space on shared hosts. */
  space: string
}

/** The line that says agents on these hosts need a git repository. */
export function needsGit(names: Iterable<string>): string {
  return `agents on ${[...names].join(', ')} get their code and bring their work back through git: run the plan inside a git repository`
}

/**
 * Placement for a plan that declares hosts: each agent's pool (less the hosts found down before the run
 * while they stay silent), the hosts' slots, the attempts' keys.
 */
export function hostPlacement(input: {
  file: string
  read: PlanHosts
  specs: ReadonlyMap<string, HostSpec>
  live: readonly LiveJob[]
  launchable: ReadonlySet<string>
  location: GitRoot | undefined
  /** Hosts found not answering before the run: their agents go to the rest of their pools while they stay silent. */
  down: ReadonlyMap<string, number>
  /** The runtime, once made (the pool asks it whether a silent host answers again). */
  made: {runtime?: HostRuntime}
}): HostPlacement {
  const {read, specs, live, location, down, made} = input
  const remote = (name: string): boolean => isRemote(specs.get(name))
  const used = new Set<string>(live.map((job) => job.host))
  for (const id of input.launchable) for (const name of read.poolOf(id)) if (remote(name)) used.add(name)
  // Read now, not in the executor's step (no I/O there): when each live job began, for its attempt's Duration.
  const launched = jobLaunchTimes(input.file, new Set(live.map((job) => job.key)))
  const onHost = (id: string, name: string): boolean => read.poolOf(id).includes(name) || live.some((job) => job.agent === id && job.host === name)
  // Keyed by the plan's path in the repository (two plans named alike in two folders never share job names)
  // and by the repository (two repositories' plan.md on one host never do either).
  const gitRoot = location?.root
  const slug = planKey(input.file, gitRoot)
  const space = gitRoot === undefined ? slug : jobSpace(slug, gitRoot)
  const config: HostsConfig = {
    // The agent's definition as the run has it now: a person may move a pending agent to another host mid-run.
    pool: (id, agent) => {
      const pool = read.poolFor(agent)
      const answering = pool.filter((name) => !(down.has(name) && made.runtime?.answers(name) === false))
      return answering.length > 0 ? answering : pool
    },
    slots: (name) => specs.get(name)?.slots ?? 0,
    remote,
    newKey: (agent, attempt) => jobKey(space, agent, attempt, randomBytes(3).toString('hex')),
    launchedAt: (key) => launched.get(key)
  }
  const runsHere = (id: string): boolean => read.poolOf(id).includes(localHostName)
  const unplaceable = (agent: Agent): string | undefined => {
    const remoteNames = read.poolFor(agent).filter(remote)
    return read.unplaceable(agent) ?? (!location && remoteNames.length > 0 ? `agent ${agent.id}: ${needsGit(remoteNames)}` : undefined)
  }
  return {config, runsHere, unplaceable, used, onHost, slug, space}
}
