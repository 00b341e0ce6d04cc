import type {Runner} from '../runners/runner.js'
import type {AuthCheck, ProjectFiles} from '../runners/host-auth.js'

export type {AuthCheck, HostSaid} from '../runners/host-auth.js'

/**
 * The login check a runner needs on a host (its `remoteAuth`), or undefined when the agents get a key from
 * here (a variable the host passes by name, set in this environment), the project's own files settle it, or
 * the runner has nothing to check there. `passed`: the host's `env:` names with their values here;
 * `project`: what the agents' clone will hold (projectAuthFacts).
 */
export function authCheck(runner: Runner, executable: string, passed: NodeJS.ProcessEnv, host: string, project: ProjectFiles): AuthCheck | undefined {
  return runner.remoteAuth?.({executable, passed, host, project})
}
