import {homedir} from 'node:os'
import {dirname, isAbsolute, join, resolve} from 'node:path'
import type {HostSpec} from './host-spec.js'

/**
 * A host entry's paths on this machine, as a person reads them in the plan: relative to the plan's folder
 * (not to the folder the run started in: `cd sub && mdplan run ../plans/remote.md` reads the same files),
 * `~` and `~/…` from the home folder. That is `config` (an ssh_config), and a container's `dir` (its job
 * folders are on this machine). An ssh host's `dir` is a path there (`~` its home there), and a Slurm
 * host's is a shared folder written as an absolute path or from `~/`: both are left as written.
 */
export function resolveHostPaths(spec: HostSpec, planFile: string): HostSpec {
  const base = dirname(resolve(planFile))
  const local = (path: string): string => {
    if (path === '~') return homedir()
    if (path.startsWith('~/')) return join(homedir(), path.slice(2))
    return isAbsolute(path) ? path : resolve(base, path)
  }
  return {
    ...spec,
    ...(spec.config !== undefined ? {config: local(spec.config)} : {}),
    ...(spec.type === 'container' && spec.dir !== undefined ? {dir: local(spec.dir)} : {})
  }
}
