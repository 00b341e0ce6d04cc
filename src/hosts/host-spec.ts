/** One entry of the front matter's `hosts:`: where agents may run. */
export interface HostSpec {
  name: string
  type: 'local' | 'ssh' | 'container'
  /** How many attempts may run there at once. */
  slots: number
  /** ssh: `user@host` or a `~/.ssh/config` alias. */
  address?: string
  port?: number
  /** ssh: an ssh_config file of its own (`ssh -F`); by default the user's `~/.ssh/config`. */
  config?: string
  /** Where job folders live there (default `~/.mdplan`; a container's `/tmp/mdplan`). */
  dir?: string
  /** container: the image to run. */
  image?: string
  /** container: `podman` or `docker` (default: whichever is installed, podman first). */
  engine?: string
  /** Names of variables passed from mdplan's environment to the agent there (never their values in argv). */
  env: string[]
  /** How long the host may stay unreachable before its attempts fail as `host lost` (ms). */
  leaseMs: number
}

export const defaultLeaseMs = 120_000
export const localHostName = 'local'

/** The implicit host every agent runs on unless told otherwise: today's behaviour. */
export const localHostSpec: HostSpec = {name: localHostName, type: 'local', slots: Number.POSITIVE_INFINITY, env: [], leaseMs: defaultLeaseMs}

/** A host that needs code shipped in and work shipped back (through git). */
export function isRemote(spec: HostSpec | undefined): boolean {
  return spec !== undefined && spec.type !== 'local'
}
