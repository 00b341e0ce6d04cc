import {randomBytes} from 'node:crypto'
import {realpathSync} from 'node:fs'
import {relative, resolve} from 'node:path'
import type {Agent, Diagnostic, Plan} from '../plan/types.js'
import type {HostsConfig} from '../executor/exec-config.js'
import type {GitRoot} from '../git/git-root.js'
import {planSlug} from '../layout/worktree-names.js'
import {readRunLog, runLogFile} from '../layout/run-log.js'
import type {Runner} from '../runners/runner.js'
import type {RowState} from '../store/table-state.js'
import {createHostRuntime, type HostRuntime} from '../hosts/host-runtime.js'
import {isRemote, localHostName, type HostSpec} from '../hosts/host-spec.js'
import {jobKey, jobKeyPrefix, jobSpace} from '../hosts/job-key.js'
import {authCheck, type AuthCheck} from '../hosts/remote-auth.js'
import {projectAuthFacts} from '../hosts/project-auth-facts.js'
import {executableOf} from '../runners/executable-of.js'
import {readHosts} from '../hosts/read-hosts.js'
import {liveJobs} from '../hosts/live-jobs.js'
import {undeclaredJobHosts} from '../hosts/undeclared-job-hosts.js'
import {jobLaunchTimes} from '../hosts/job-launch-times.js'
import {openJobLedger, suspectJobs} from '../hosts/job-ledger.js'
import {resolveHostPaths} from '../hosts/host-paths.js'
import {workingTree} from './unsent-files.js'

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
  /** Said once the run holds the plan: a host of a pool that does not answer, files a host will not get. */
  warnings: string[]
}

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
  const remote = (name: string): boolean => isRemote(specs.get(name))
  // A job a dead run left is gone back to on its own host (the pool chooses where new attempts go), so that
  // host must still be declared: a second copy launched elsewhere would run beside it.
  const live = liveJobs(plan).filter((job) => input.launchable.has(job.agent))
  problems.push(...undeclaredJobHosts(plan, read.hosts, live))
  const declared = input.cliHost !== undefined || plan.agents.some((agent) => agent.fields.host) || Object.keys(plan.settings.raw).some((key) => /^hosts?$/i.test(key))
  const everywhere = (): boolean => true
  if (problems.length > 0) return {runsHere: everywhere, used: [], unplaceable: read.unplaceable, problems, warnings}
  // Every host that may hold a job of the plan, whatever the plan says now: the ledger, the rows' notes, the run log.
  const ledger = openJobLedger(file)
  const rows = [...(input.rows ?? [])]
  const remembers = ledger.names().length > 0 || rows.some((row) => /(?:^|;\s*)(?:job|work|host):/.test(row.notes))
  if (declared || remembers) {
    const launches = readRunLog(runLogFile(file), file).flatMap((event) => (event.type === 'launched' ? [{host: event.host, job: event.job, time: event.time}] : []))
    suspectJobs(ledger, rows, launches)
  }
  const location = await input.root
  if (!declared) {
    // Hosts no agent uses any more may still hold the plan's jobs: the run sweeps them (with the ledger's specs).
    if (!location || ledger.pending().length === 0) return {runsHere: everywhere, used: [], unplaceable: read.unplaceable, problems, warnings}
    const slug = planSlug(file, location.root)
    const runtime = createHostRuntime({plan, file, specs, root: location.root, prefix: location.prefix, slug, space: jobSpace(slug, location.root), strictScope: input.strictScope, commits: () => false, ledger})
    return {runtime, runsHere: everywhere, used: [], unplaceable: read.unplaceable, problems, warnings}
  }
  const used = new Set<string>(live.map((job) => job.host))
  for (const id of input.launchable) for (const name of read.poolOf(id)) if (remote(name)) used.add(name)
  // Read now, not in the executor's step (no I/O there): when each live job began, for its attempt's Duration.
  const launched = jobLaunchTimes(file, new Set(live.map((job) => job.key)))
  const onHost = (id: string, name: string): boolean => read.poolOf(id).includes(name) || live.some((job) => job.agent === id && job.host === name)
  // Keyed by the plan's path in the repository (two plans named alike in two folders never share job names)
  // and by the repository (two repositories' plan.md on one host never do either).
  const gitRoot = location?.root
  const slug = planSlug(file, gitRoot)
  const space = gitRoot === undefined ? slug : jobSpace(slug, gitRoot)
  /** Hosts found not answering before the run: their agents go to the rest of their pools while they stay silent. */
  const down = new Map<string, number>()
  /** The runtime's record of hosts that do not answer (a host found silent here, then heard again, rejoins its pools). */
  const silent = new Map<string, number>()
  /** The runtime, once made (the pool below asks it whether a silent host answers again). */
  const made: {runtime?: HostRuntime} = {}
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
  const needsGit = (names: Iterable<string>): string => `agents on ${[...names].join(', ')} get their code and bring their work back through git: run the plan inside a git repository`
  const unplaceable = (agent: Agent): string | undefined => {
    const remoteNames = read.poolFor(agent).filter(remote)
    return read.unplaceable(agent) ?? (!location && remoteNames.length > 0 ? `agent ${agent.id}: ${needsGit(remoteNames)}` : undefined)
  }
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
  // Some runners read their auth from project files too (gemini, opencode): the ones the agents' clone will hold, read here once.
  const project = await projectAuthFacts(location.root, location.prefix, [...input.launchable].flatMap((id) => input.runners.get(id) ?? []))
  const preflight = (name: string): Promise<string[]> => {
    // The executable the jobs will start (an override such as MDPLAN_CLAUDE_BIN applies there too), and its login.
    const executables = new Map<string, AuthCheck | undefined>()
    const spec = specs.get(name)!
    const passed = Object.fromEntries(spec.env.map((variable) => [variable, process.env[variable]]))
    for (const id of input.launchable) {
      const runner = input.runners.get(id)
      const executable = runner ? executableOf(runner) : undefined
      if (!runner || !executable || !onHost(id, name) || executables.has(executable)) continue
      executables.set(executable, authCheck(runner, executable, passed, spec.address ?? name, project))
    }
    return runtime.host(name).preflight([...executables.keys()], [...executables.values()].filter((check) => check !== undefined))
  }

  // Each host's checks; a host they find fault with is asked whether it answers at all (a listing of the plan's
  // jobs there): one that does not is one warning, in its own words (ssh's last line, the probe to try), and its
  // agents go to the rest of their pools.
  const why = new Map<string, string>()
  const lines = await Promise.all(
    [...used].map(async (name) => {
      const said = await preflight(name)
      if (said.length === 0 || (await runtime.host(name).list(jobKeyPrefix(space)).catch(() => undefined)) !== undefined) return said
      down.set(name, Date.now())
      silent.set(name, Date.now())
      why.set(name, said[0]!)
      return []
    })
  )
  if (down.size > 0) {
    // The run stops only for an agent no host of whose pool answers: by pool, one line each.
    const stranded = new Map<string, string[]>()
    for (const id of input.launchable) {
      const pool = [...new Set([...read.poolOf(id), ...live.filter((job) => job.agent === id).map((job) => job.host)])]
      if (pool.length === 0 || !pool.every((name) => remote(name) && down.has(name))) continue
      const key = pool.join(', ')
      stranded.set(key, [...(stranded.get(key) ?? []), id])
    }
    for (const [pool, agents] of stranded) {
      const names = pool.split(', ')
      const answering = [...specs.keys()].filter((name) => !down.has(name) && (name === localHostName || remote(name)))
      // `--host` places the agents without a `host` field of their own; those with one are moved by editing it.
      const own = agents.filter((id) => plan.agents.find((agent) => agent.id === id)?.fields.host !== undefined)
      const elsewhere =
        own.length === agents.length
          ? `set their \`host\` to a host that answers (${answering.join(', ')})`
          : `run with \`--host NAME\` to place the agents on a host that answers (${answering.join(', ')})${own.length > 0 ? `; ${own.join(', ')} ${own.length === 1 ? 'has' : 'have'} a \`host\` of ${own.length === 1 ? 'its' : 'their'} own, which --host does not change` : ''}`
      const reason =
        `${agents.length === 1 ? `agent ${agents[0]}` : `agents ${agents.join(', ')}`}: no host of ${names.length === 1 ? `its pool (${names[0]})` : `the pool ${pool}`} answers: ${names.map((name) => why.get(name)).join('; ')}. ` +
        `Check the host, or ${elsewhere}`
      problems.push({severity: 'error', rule: 'host-unreachable', reason, file})
    }
    if (problems.length > 0) {
      await runtime.close()
      return {config, runtime, runsHere, used: [...used], unplaceable, problems, warnings}
    }
    for (const name of down.keys()) {
      const lease = specs.get(name)?.leaseMs ?? 0
      warnings.push(
        `${why.get(name)}; this run places agents on the rest of their pools while it does not answer, and a job it holds is taken for lost after its lease (${Math.round(lease / 1000)} s), as in a run that loses it`
      )
    }
  }

  for (const line of lines.flat()) problems.push({severity: 'error', rule: 'host-unavailable', reason: line, file})
  if (problems.length > 0) {
    await runtime.close()
    return {config, runtime, runsHere, used: [...used], unplaceable, problems, warnings}
  }
  // A host gets what is committed, and nothing else of this working tree: say what it will not get, once.
  const sentTo = [...used].filter((name) => !down.has(name))
  const unsent = sentTo.length > 0 ? tree?.unsent : undefined
  if (unsent) warnings.push(`${sentTo.join(', ')} ${sentTo.length === 1 ? 'gets' : 'get'} the repository as committed (each attempt's base commit), not this working tree: ${unsent}; commit what the agents there need`)
  return {config, runtime, runsHere, used: [...used], unplaceable, problems, warnings}
}

function real(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}
