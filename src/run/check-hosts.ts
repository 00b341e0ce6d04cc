import type {Plan} from '../plan/types.js'
import type {GitRoot} from '../git/git-root.js'
import type {Runner} from '../runners/runner.js'
import {executableOf} from '../runners/executable-of.js'
import type {HostRuntime} from '../hosts/host-runtime.js'
import type {HostSpec} from '../hosts/host-spec.js'
import {jobKeyPrefix} from '../hosts/job-key.js'
import {authCheck, type AuthCheck} from '../hosts/remote-auth.js'
import {projectAuthFacts} from '../hosts/project-auth-facts.js'
import type {PlanHosts} from '../hosts/read-hosts.js'
import type {LiveJob} from '../hosts/live-jobs.js'
import {strandedAgents} from './stranded-agents.js'
import type {HostSetup} from './host-setup.js'

/**
 * Each used host's checks (src/run/setup-hosts.ts): a host they find fault with is asked whether it answers
 * at all (a listing of the plan's jobs there): one that does not is one warning, in its own words (ssh's last
 * line, the probe to try), and its agents go to the rest of their pools. Adds its problems and warnings to
 * `setup`, and closes the runtime when there is a problem.
 */
export async function checkHosts(
  setup: HostSetup & {runtime: HostRuntime},
  input: {
    plan: Plan
    file: string
    runners: ReadonlyMap<string, Runner>
    launchable: ReadonlySet<string>
    read: PlanHosts
    specs: ReadonlyMap<string, HostSpec>
    live: readonly LiveJob[]
    location: GitRoot
    space: string
    onHost: (id: string, name: string) => boolean
    /** What a host will not get of this working tree, if anything. */
    unsent: string | undefined
    down: Map<string, number>
    silent: Map<string, number>
  }
): Promise<HostSetup> {
  const {runtime, used, problems, warnings} = setup
  const {specs, down} = input
  // Some runners read their auth from project files too (gemini, opencode): the ones the agents' clone will hold, read here once.
  const project = await projectAuthFacts(input.location.root, input.location.prefix, [...input.launchable].flatMap((id) => input.runners.get(id) ?? []))
  const preflight = (name: string): Promise<string[]> => {
    // The executable the jobs will start (an override such as MDPLAN_CLAUDE_BIN applies there too), and its login.
    const executables = new Map<string, AuthCheck | undefined>()
    const spec = specs.get(name)!
    const passed = Object.fromEntries(spec.env.map((variable) => [variable, process.env[variable]]))
    for (const id of input.launchable) {
      const runner = input.runners.get(id)
      const executable = runner ? executableOf(runner) : undefined
      if (!runner || !executable || !input.onHost(id, name) || executables.has(executable)) continue
      executables.set(executable, authCheck(runner, executable, passed, spec.address ?? name, project))
    }
    return runtime.host(name).preflight([...executables.keys()], [...executables.values()].filter((check) => check !== undefined))
  }

  const why = new Map<string, string>()
  const lines = await Promise.all(
    used.map(async (name) => {
      const said = await preflight(name)
      if (said.length === 0 || (await runtime.host(name).list(jobKeyPrefix(input.space)).catch(() => undefined)) !== undefined) return said
      down.set(name, Date.now())
      input.silent.set(name, Date.now())
      why.set(name, said[0]!)
      return []
    })
  )
  if (down.size > 0) {
    problems.push(...strandedAgents({...input, why}))
    if (problems.length > 0) {
      await runtime.close()
      return setup
    }
    for (const name of down.keys()) {
      const lease = specs.get(name)?.leaseMs ?? 0
      warnings.push(
        `${why.get(name)}; this run places agents on the rest of their pools while it does not answer, and a job it holds is taken for lost after its lease (${Math.round(lease / 1000)} s), as in a run that loses it`
      )
    }
  }

  for (const line of lines.flat()) problems.push({severity: 'error', rule: 'host-unavailable', reason: line, file: input.file})
  if (problems.length > 0) {
    await runtime.close()
    return setup
  }
  // A host gets what is committed, and nothing else of this working tree: say what it will not get, once.
  const sentTo = used.filter((name) => !down.has(name))
  const unsent = sentTo.length > 0 ? input.unsent : undefined
  if (unsent) warnings.push(`${sentTo.join(', ')} ${sentTo.length === 1 ? 'gets' : 'get'} the repository as committed (each attempt's base commit), not this working tree: ${unsent}; commit what the agents there need`)
  return setup
}
