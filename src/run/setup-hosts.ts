import {realpathSync} from 'node:fs'
import {relative, resolve} from 'node:path'
import type {Agent, Plan} from '../plan/types.js'
import type {GitRoot} from '../git/git-root.js'
import {planKey} from '../layout/plan-key.js'
import type {Runner} from '../runners/runner.js'
import type {RowState} from '../store/table-state.js'
import {createHostRuntime, type HostRuntime} from '../hosts/host-runtime.js'
import {isRemote, type HostSpec} from '../hosts/host-spec.js'
import {jobSpace} from '../hosts/job-key.js'
import {readHosts} from '../hosts/read-hosts.js'
import {liveJobs} from '../hosts/live-jobs.js'
import {undeclaredJobHosts} from '../hosts/undeclared-job-hosts.js'
import {resolveHostPaths} from '../hosts/host-paths.js'
import {workingTree} from './unsent-files.js'
import {hostLedger} from './host-ledger.js'
import {hostPlacement, needsGit} from './host-placement.js'
import {checkHosts} from './check-hosts.js'
import type {HostSetup} from './host-setup.js'

export type {HostSetup} from './host-setup.js'

/**
 * Read the plan's hosts and check each one an agent may use, once, before
 * anything launches: reachable, git there, the runners' CLIs there and
 * logged in (their own status command, or what gemini and opencode read
 * there, in the same round trip), disk.
 * Every problem is one line saying what to do; any problem stops the run,
 * except a host of a pool that does not answer: the run places its agents on
 * the rest of their pools (it stops only when no host of an agent's pool
 * answers), and its jobs go through the lease as in a live run.
 */
export async function setupHosts(input: {
  plan: Plan
  file: string
  cliHost?: string
  root: Promise<GitRoot | undefined>
  runners: ReadonlyMap<string, Runner>
  /** Agents that may launch in this run (not completed). */
  launchable: ReadonlySet<string>
  strictScope: boolean
  /** The table as the run starts from it: the hosts its notes name may hold jobs of the plan. */
  rows?: Iterable<RowState>
}): Promise<HostSetup> {
  const {plan, file} = input
  const read = readHosts(plan, input.cliHost)
  const problems = read.diagnostics
  const warnings: string[] = []
  // A host entry's own paths (`config`, a container's `dir`) are read from the plan's folder, `~` from home.
  const specs = new Map<string, HostSpec>([...read.hosts].map(([name, spec]) => [name, isRemote(spec) ? resolveHostPaths(spec, file) : spec]))
  // A job a dead run left is gone back to on its own host (the pool chooses where new attempts go), so that
  // host must still be declared: a second copy launched elsewhere would run beside it.
  const live = liveJobs(plan).filter((job) => input.launchable.has(job.agent))
  problems.push(...undeclaredJobHosts(plan, read.hosts, live))
  const declared = input.cliHost !== undefined || plan.agents.some((agent) => agent.fields.host) || Object.keys(plan.settings.raw).some((key) => /^hosts?$/i.test(key))
  const everywhere = (): boolean => true
  if (problems.length > 0) return {runsHere: everywhere, used: [], unplaceable: read.unplaceable, problems, warnings}
  // Every host that may hold a job of the plan, whatever the plan says now: the ledger, the rows' notes, the run log.
  const ledger = hostLedger(file, [...(input.rows ?? [])], declared)
  const location = await input.root
  if (!declared) {
    // Hosts no agent uses any more may still hold the plan's jobs: the run sweeps them (with the ledger's specs).
    if (!location || ledger.pending().length === 0) return {runsHere: everywhere, used: [], unplaceable: read.unplaceable, problems, warnings}
    const slug = planKey(file, location.root)
    const runtime = createHostRuntime({plan, file, specs, root: location.root, prefix: location.prefix, slug, space: jobSpace(slug, location.root), strictScope: input.strictScope, commits: () => false, ledger})
    return {runtime, runsHere: everywhere, used: [], unplaceable: read.unplaceable, problems, warnings}
  }
  /** Hosts found not answering before the run: their agents go to the rest of their pools while they stay silent. */
  const down = new Map<string, number>()
  /** The runtime's record of hosts that do not answer (a host found silent here, then heard again, rejoins its pools). */
  const silent = new Map<string, number>()
  /** The runtime, once made (the pool asks it whether a silent host answers again). */
  const made: {runtime?: HostRuntime} = {}
  const placement = hostPlacement({file, read, specs, live, launchable: input.launchable, location, down, made})
  const {config, runsHere, unplaceable, used, slug, space} = placement
  if (![...specs.values()].some(isRemote) && ledger.pending().length === 0) return {config, runsHere, used: [], unplaceable, problems, warnings}
  if (!location) {
    if (used.size > 0) problems.push({severity: 'error', rule: 'host-needs-git', reason: needsGit(used), file})
    return {config, runsHere, used: [...used], unplaceable, problems, warnings}
  }
  // A remote agent starts from a commit: in a repository with none, every attempt would fail at once.
  const tree = used.size > 0 ? await workingTree(location.root, [relative(location.root, real(resolve(file)))]) : undefined
  if (tree && !tree.committed) {
    const reason = `${location.root}: the repository has no commit yet, and agents on ${[...used].join(', ')} start from one (their code goes there as git history): commit once (\`git add -A && git commit -m start\`), then run again`
    problems.push({severity: 'error', rule: 'host-no-commit', reason, file})
    return {config, runsHere, used: [...used], unplaceable, problems, warnings}
  }
  const commits = (agent: Agent): boolean => ['true', 'yes', 'on'].includes((agent.fields.commit?.value ?? String(plan.settings.commit ?? '')).trim().toLowerCase())
  // Made whenever a remote host is declared: an edit during the run may move an agent to one no agent used at the start.
  const runtime = createHostRuntime({plan, file, specs, root: location.root, prefix: location.prefix, slug, space, strictScope: input.strictScope, commits, ledger, down: silent})
  made.runtime = runtime
  if (used.size === 0) return {config, runtime, runsHere, used: [], unplaceable, problems, warnings}
  const setup = {config, runtime, runsHere, used: [...used], unplaceable, problems, warnings}
  return checkHosts(setup, {...input, read, specs, live, location, space, onHost: placement.onHost, unsent: tree?.unsent, down, silent})
}

function real(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}
