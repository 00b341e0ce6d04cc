import type {Host} from './host.js'
import type {HostSpec} from './host-spec.js'

/** A container per attempt, named by its key (podman or docker). */
export function containerHost(spec: HostSpec): Host {
  const missing = async (): Promise<never> => {
    throw new Error(`container hosts are not supported yet (${spec.name})`)
  }
  return {spec, run: missing, collect: missing, cancel: missing, list: async () => undefined, preflight: async () => [`host ${spec.name}: container hosts are not supported yet`], close: async () => undefined}
}
