import type {Host} from './host.js'
import type {HostSpec} from './host-spec.js'
import {kubernetesHost} from './kubernetes/kubernetes-host.js'
import {slurmHost} from './slurm/slurm-host.js'

/** The engines a team already runs (`type: slurm`, `type: kubernetes`); undefined for other hosts. */
export function clusterHost(spec: HostSpec): Host | undefined {
  if (spec.type === 'slurm') return slurmHost(spec)
  if (spec.type === 'kubernetes') return kubernetesHost(spec)
  return undefined
}
