import {execa} from 'execa'

/** One job as Slurm reports it. */
export interface SlurmJob {
  id: string
  name: string
  /** PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, NODE_FAIL, … */
  state: string
  exitCode?: number
}

/** States after which Slurm runs nothing more for the job. */
const ended = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT', 'NODE_FAIL', 'PREEMPTED', 'BOOT_FAIL', 'OUT_OF_MEMORY', 'DEADLINE', 'SPECIAL_EXIT'])
/** Ended because a node or the scheduler gave up on it: whatever the job wrote is not to be trusted. */
const workerLost = new Set(['NODE_FAIL', 'BOOT_FAIL', 'PREEMPTED'])

/** Waiting for a node (or held) before it runs. */
const waiting = new Set(['PENDING', 'CONFIGURING', 'REQUEUED', 'REQUEUE_HOLD', 'REQUEUE_FED', 'RESV_DEL_HOLD'])
/** Started, and on its way (suspended or stopped jobs go on when resumed). */
const going = new Set(['RUNNING', 'COMPLETING', 'SUSPENDED', 'STOPPED', 'RESIZING', 'SIGNALING', 'STAGE_OUT', 'POWER_UP_NODE', 'UPDATE_DB'])

export const isEnded = (state: string): boolean => ended.has(state)
export const isWorkerLost = (state: string): boolean => workerLost.has(state)

/** Where a state puts a job: `unknown` for a state this list does not know (it ends the attempt if it does not move). */
export function slurmPhase(state: string): 'queued' | 'running' | 'ended' | 'lost' | 'unknown' {
  if (waiting.has(state)) return 'queued'
  if (going.has(state)) return 'running'
  if (workerLost.has(state)) return 'lost'
  return ended.has(state) ? 'ended' : 'unknown'
}

/**
 * Slurm's own clients as child processes, arguments always as arrays (no
 * shell). Found on PATH, so a site's wrappers and `SLURM_CONF` apply as
 * they do for the user (and tests put fakes first on PATH).
 */
export const slurmCli = {
  /** `sbatch --parsable …`: the job's id, or why not. */
  async submit(args: readonly string[]): Promise<{id: string} | {error: string}> {
    const result = await execa('sbatch', ['--parsable', ...args], {reject: false, stdin: 'ignore', timeout: 60_000})
    // `--parsable` prints `id` or `id;cluster`.
    const id = /^(\d+)(?:;\S*)?\s*$/.exec(String(result.stdout))?.[1]
    if (result.exitCode === 0 && id) return {id}
    return {error: String(result.stderr).trim().split('\n').at(-1) || result.shortMessage || 'failed'}
  },

  /** Every job Slurm still knows (`squeue --json`; it ignores filters, so names are matched here). */
  async queue(): Promise<SlurmJob[] | {error: string}> {
    const result = await execa('squeue', ['--json'], {reject: false, stdin: 'ignore', timeout: 60_000})
    if (result.exitCode !== 0) return {error: String(result.stderr).trim().split('\n').at(-1) || result.shortMessage || 'failed'}
    try {
      const parsed = JSON.parse(String(result.stdout)) as {jobs?: Array<Record<string, unknown>>}
      return (parsed.jobs ?? []).map(readJob)
    } catch {
      return {error: 'squeue --json printed something that is not JSON'}
    }
  },

  /** `scontrol show job ID`: a job squeue no longer lists may still be known here; undefined when forgotten. */
  async show(id: string): Promise<SlurmJob | undefined> {
    const result = await execa('scontrol', ['show', 'job', id], {reject: false, stdin: 'ignore', timeout: 60_000})
    if (result.exitCode !== 0) return undefined
    const field = (name: string): string | undefined => new RegExp(`(?:^|\\s)${name}=(\\S*)`).exec(String(result.stdout))?.[1]
    const state = field('JobState')
    if (!state) return undefined
    const exit = field('ExitCode')
    return {id, name: field('JobName') ?? '', state, ...(exit ? {exitCode: Number(exit.split(':')[0])} : {})}
  },

  /** `scancel` the jobs by id. */
  async cancel(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await execa('scancel', [...ids], {reject: false, stdin: 'ignore', timeout: 60_000})
  },

  /** `sinfo`: the controller answers (and the partition exists); the problem otherwise. */
  async info(partition: string | undefined): Promise<string | undefined> {
    const result = await execa('sinfo', ['--noheader', '--format=%P %a', ...(partition ? ['--partition', partition] : [])], {reject: false, stdin: 'ignore', timeout: 30_000})
    if (result.failed && result.exitCode === undefined) return 'sinfo is not installed here'
    if (result.exitCode !== 0) return String(result.stderr).trim().split('\n').at(-1) || `sinfo exited with ${result.exitCode}`
    if (partition && String(result.stdout).trim() === '') return `no partition ${partition}`
    return undefined
  }
}

/** A job of `squeue --json`: field names and shapes differ across Slurm versions (a state string or a list; a number or `{number}`). */
function readJob(raw: Record<string, unknown>): SlurmJob {
  const number = (value: unknown): number | undefined => {
    if (typeof value === 'number') return value
    if (value && typeof value === 'object' && 'number' in value && typeof value.number === 'number') return value.number
    if (value && typeof value === 'object' && 'return_code' in value) return number(value.return_code)
    return undefined
  }
  const state = raw.job_state
  const exitCode = number(raw.exit_code)
  return {
    id: String(number(raw.job_id) ?? raw.job_id),
    name: String(raw.name ?? ''),
    state: String(Array.isArray(state) ? (state[0] ?? '') : (state ?? '')),
    ...(exitCode !== undefined ? {exitCode} : {})
  }
}
