import {randomBytes} from 'node:crypto'
import type {Agent, Diagnostic, Plan} from '../plan/types.js'
import type {HostsConfig} from '../executor/exec-config.js'
import type {GitRoot} from '../git/git-root.js'
import {planSlug} from '../layout/worktree-names.js'
import type {Runner} from '../runners/runner.js'
import {createHostRuntime, type HostRuntime} from '../hosts/host-runtime.js'
import {isRemote, localHostName} from '../hosts/host-spec.js'
import {jobKey, jobSpace} from '../hosts/job-key.js'
import {authCheck, type AuthCheck} from '../hosts/remote-auth.js'
import {projectAuthFacts} from '../hosts/project-auth-facts.js'
import {executableOf} from '../runners/executable-of.js'
import {readHosts} from '../hosts/read-hosts.js'
import {liveJobs} from '../hosts/live-jobs.js'
import {undeclaredJobHosts} from '../hosts/undeclared-job-hosts.js'
import {jobLaunchTimes} from '../hosts/job-launch-times.js'
import {readRunLog, runLogFile} from '../layout/run-log.js'
import type {RowState} from '../store/table-state.js'
import {openJobLedger, suspectJobs} from '../hosts/job-ledger.js'

export interface HostSetup {
  /** Placement for the executor; undefined when the plan declares no hosts (every agent runs here, as always). */
  config?: HostsConfig
  runtime?: HostRuntime
  /** Whether an agent may run on this machine (its runner's CLI is checked here only then). */
  runsHere: (agent: string) => boolean
  /** Remote hosts the launchable agents may use. */
  used: string[]
  /**
   * Why an agent's current definition cannot be placed in this run (its `host` names a host the run does not
   * have), or undefined: an agent edited so during the run is held, not launched, until a save fixes it.
   */
  unplaceable: (agent: Agent) => string | undefined
  problems: Diagnostic[]
}

/**
 * Read the plan's hosts and check each one an agent may use, once, before
 * anything launches: reachable, git there, the runners' CLIs there and
 * logged in (their own status command, or what gemini and opencode read
 * there, in the same round trip), disk.
 * Every problem is one line saying what to do; any problem stops the run.
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
  const remote = (name: string): boolean => isRemote(read.hosts.get(name))
  // A job a dead run left is gone back to on its own host (the pool chooses where new attempts go), so that
  // host must still be declared: a second copy launched elsewhere would run beside it.
  const live = liveJobs(plan).filter((job) => input.launchable.has(job.agent))
  problems.push(...undeclaredJobHosts(plan, read.hosts, live))
  const declared = input.cliHost !== undefined || plan.agents.some((agent) => agent.fields.host) || Object.keys(plan.settings.raw).some((key) => /^hosts?$/i.test(key))
  const everywhere = (): boolean => true
  if (problems.length > 0) return {runsHere: everywhere, used: [], unplaceable: read.unplaceable, problems}
  // Every host that may hold a job of the plan, whatever the plan says now: the ledger, the rows' notes, the run log.
  const ledger = openJobLedger(file)
  const rows = [...(input.rows ?? [])]
  const remembers = ledger.names().length > 0 || rows.some((row) => /(?:^|;\s*)(?:job|work|host):/.test(row.notes))
  if (declared || remembers) {
    const launches = readRunLog(runLogFile(file), file).flatMap((event) => (event.type === 'launched' ? [{host: event.host, job: event.job, time: event.time}] : []))
    suspectJobs(ledger, rows, launches)
  }
  if (!declared) {
    // Hosts no agent uses any more may still hold the plan's jobs: the run sweeps them (with the ledger's specs).
    const location = await input.root
    if (!location || ledger.pending().length === 0) return {runsHere: everywhere, used: [], unplaceable: read.unplaceable, problems}
    const slug = planSlug(file, location.root)
    const runtime = createHostRuntime({plan, file, specs: read.hosts, root: location.root, prefix: location.prefix, slug, space: jobSpace(slug, location.root), strictScope: input.strictScope, commits: () => false, ledger})
    return {runtime, runsHere: everywhere, used: [], unplaceable: read.unplaceable, problems}
  }
  const used = new Set<string>(live.map((job) => job.host))
  for (const id of input.launchable) for (const name of read.poolOf(id)) if (remote(name)) used.add(name)
  // Read now, not in the executor's step (no I/O there): when each live job began, for its attempt's Duration.
  const launched = jobLaunchTimes(file, new Set(live.map((job) => job.key)))
  const onHost = (id: string, name: string): boolean => read.poolOf(id).includes(name) || live.some((job) => job.agent === id && job.host === name)
  // Keyed by the plan's path in the repository (two plans named alike in two folders never share job names)
  // and by the repository (two repositories' plan.md on one host never do either).
  const gitRoot = (await input.root)?.root
  const slug = planSlug(file, gitRoot)
  const space = gitRoot === undefined ? slug : jobSpace(slug, gitRoot)
  const config: HostsConfig = {
    // The agent's definition as the run has it now: a person may move a pending agent to another host mid-run.
    pool: (id, agent) => read.poolFor(agent),
    slots: (name) => read.hosts.get(name)?.slots ?? 0,
    remote,
    newKey: (agent, attempt) => jobKey(space, agent, attempt, randomBytes(3).toString('hex')),
    launchedAt: (key) => launched.get(key)
  }
  const runsHere = (id: string): boolean => read.poolOf(id).includes(localHostName)
  const location = await input.root
  const needsGit = (names: Iterable<string>): string => `agents on ${[...names].join(', ')} get their code and bring their work back through git: run the plan inside a git repository`
  const unplaceable = (agent: Agent): string | undefined => {
    const remoteNames = read.poolFor(agent).filter(remote)
    return read.unplaceable(agent) ?? (!location && remoteNames.length > 0 ? `agent ${agent.id}: ${needsGit(remoteNames)}` : undefined)
  }
  if (![...read.hosts.values()].some(isRemote) && ledger.pending().length === 0) return {config, runsHere, used: [], unplaceable, problems}
  if (!location) {
    if (used.size > 0) problems.push({severity: 'error', rule: 'host-needs-git', reason: needsGit(used), file})
    return {config, runsHere, used: [...used], unplaceable, problems}
  }
  const commits = (agent: Agent): boolean => ['true', 'yes', 'on'].includes((agent.fields.commit?.value ?? String(plan.settings.commit ?? '')).trim().toLowerCase())
  // Made whenever a remote host is declared: an edit during the run may move an agent to one no agent used at the start.
  const runtime = createHostRuntime({plan, file, specs: read.hosts, root: location.root, prefix: location.prefix, slug, space, strictScope: input.strictScope, commits, ledger})
  if (used.size === 0) return {config, runtime, runsHere, used: [], unplaceable, problems}
  // gemini and opencode read their auth from project files too: the ones the agents' clone will hold, read here once.
  const readsProject = [...input.launchable].some((id) => ['gemini', 'opencode'].includes(input.runners.get(id)?.name ?? ''))
  const project = readsProject ? await projectAuthFacts(location.root, location.prefix) : {geminiEnvFile: false, opencodeConfig: false}
  const lines = await Promise.all(
    [...used].map((name) => {
      // The executable the jobs will start (an override such as MDPLAN_CLAUDE_BIN applies there too), and its login.
      const executables = new Map<string, AuthCheck | undefined>()
      const spec = read.hosts.get(name)!
      const passed = Object.fromEntries(spec.env.map((variable) => [variable, process.env[variable]]))
      for (const id of input.launchable) {
        const runner = input.runners.get(id)
        const executable = runner ? executableOf(runner) : undefined
        if (!runner || !executable || !onHost(id, name) || executables.has(executable)) continue
        executables.set(executable, authCheck(runner.name, executable, passed, spec.address ?? name, project))
      }
      return runtime.host(name).preflight([...executables.keys()], [...executables.values()].filter((check) => check !== undefined))
    })
  )
  for (const line of lines.flat()) problems.push({severity: 'error', rule: 'host-unavailable', reason: line, file})
  if (problems.length > 0) await runtime.close()
  return {config, runtime, runsHere, used: [...used], unplaceable, problems}
}

