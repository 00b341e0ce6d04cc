import type {Host} from './host.js'
import type {HostSpec} from './host-spec.js'
import type {HostContext, HostType} from './host-type.js'
import {localType} from './local/local-type.js'
import {sshType} from './ssh/ssh-type.js'
import {containerType} from './container/container-type.js'
import {slurmType} from './slurm/slurm-type.js'
import {kubernetesType} from './kubernetes/kubernetes-type.js'

export type {HostContext, HostType} from './host-type.js'

/**
 * Every kind of host by its `type:`, the one place an engine is named: adding one is a folder under
 * src/hosts/ (its engine and its descriptor, `<engine>-type.ts`) and an entry here. The front matter's
 * accepted types and each one's fields and checks are read from here (read-hosts.ts).
 */
export const hostTypes = {
  local: localType,
  ssh: sshType,
  container: containerType,
  slurm: slurmType,
  kubernetes: kubernetesType
} satisfies Record<string, HostType>

/** The same map, open to a type registered at run time (a test's throwaway engine). */
export const hostTypeMap: Record<string, HostType> = hostTypes

/** The types mdplan knows, `local` among them: what a spec's `type` is once read-hosts.ts accepted it. */
export type HostTypeName = keyof typeof hostTypes

/** The host a spec describes, made by its type's engine; an unknown type is an error, never another engine. */
export function createHost(spec: HostSpec, context: HostContext): Host {
  const type = hostTypeMap[spec.type]
  if (!type) throw new Error(`host ${spec.name}: unknown type \`${spec.type}\` (known: ${Object.keys(hostTypeMap).join(', ')})`)
  return type.create(spec, context)
}
