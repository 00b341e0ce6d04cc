import type {Host} from './host.js'
import type {HostSpec} from './host-spec.js'
import {localHost} from './local/local-host.js'
import {sshHost} from './ssh/ssh.js'
import {containerHost} from './container/container.js'
import {slurmHost} from './slurm/slurm-host.js'
import {kubernetesHost} from './kubernetes/kubernetes-host.js'

/** What an engine is given besides its spec: the repository's root, the folder of this plan's local jobs, and of its files in flight. */
export interface HostContext {
  root: string
  jobs: string
  /** The plan's `.mdplan/host-files/`: job archives, base and result bundles (layout/jobs-folder.ts). */
  scratch: string
}

/** One kind of host: how to make one from its front-matter entry. */
export interface HostType {
  create(spec: HostSpec, context: HostContext): Host
}

/**
 * Every kind of host by its `type:`, the one place an engine is named: adding one is a folder under
 * src/hosts/ and an entry here.
 */
export const hostTypes = {
  local: {create: (spec, context) => localHost(spec, context.jobs)},
  ssh: {create: (spec, context) => sshHost(spec, context.scratch)},
  container: {create: (spec, context) => containerHost(spec, context)},
  slurm: {create: (spec, context) => slurmHost(spec, context.scratch)},
  kubernetes: {create: (spec, context) => kubernetesHost(spec, context.scratch)}
} satisfies Record<string, HostType>

export type HostTypeName = keyof typeof hostTypes

/** The host a spec describes, made by its type's engine; an unknown type is an error, never another engine. */
export function createHost(spec: HostSpec, context: HostContext): Host {
  const type = (hostTypes as Record<string, HostType>)[spec.type]
  if (!type) throw new Error(`host ${spec.name}: unknown type \`${spec.type}\` (known: ${Object.keys(hostTypes).join(', ')})`)
  return type.create(spec, context)
}
