/** One entry of the front matter's `hosts:`: where agents may run. */
export interface HostSpec<Type extends string = string> {
  name: string
  /** Its engine: a key of `hostTypes` (src/hosts/host-types.ts, whose `HostTypeName` read-hosts.ts gives it). */
  type: Type
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
  /** slurm: `--partition`. */
  partition?: string
  /** slurm: `--time` (Slurm's own format, such as `1:00:00`). */
  time?: string
  /** slurm: `--cpus-per-task`; kubernetes: the container's CPU request. */
  cpus?: number
  /** slurm: `--mem` (such as `4G`); kubernetes: the container's memory request (such as `4Gi`). */
  memory?: string
  /** slurm: more `sbatch` arguments, each one word. */
  sbatch?: string[]
  /** kubernetes: the namespace its Jobs go in (default: the context's, else `default`). */
  namespace?: string
  /** kubernetes: the kubeconfig context (default: the current one). */
  context?: string
  /** kubernetes: the Jobs' service account. */
  serviceAccount?: string
  /** kubernetes: a Secret whose keys become the agent's environment (`envFrom`). */
  secret?: string
  /** A type's own fields that this interface does not name (a new engine's), as its descriptor read them. */
  own?: Record<string, unknown>
  /** Names of variables passed from mdplan's environment to the agent there (never their values in argv). */
  env: string[]
  /** `accounts`: the most agents of a runner that may run at once there, by runner name (lower case); wins over the front matter's. */
  accounts?: Record<string, number>
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
