import type {SpawnResult, HostCommand} from '../process/process-types.js'
import type {HostSpec} from './host-spec.js'
import type {AuthCheck} from './remote-auth.js'

/** A remote attempt's job: its host, its key, whether a rerun attaches to it, and the earlier job whose folder it goes on in. */
export interface JobRef {
  host: string
  key: string
  reattach: boolean
  work?: string
}

/** One attempt on one host, named by its key (the job's unique name there). */
export interface HostJob {
  key: string
  logFile: string
  timeoutMs?: number
  signal?: AbortSignal
  /** Code in: the commit the agent starts from, on its branch, in the repository at `root`; `cwd` is the plan's folder inside it. */
  git?: {root: string; base: string; branch: string; prefix: string; message: string}
  /** A local job's folder: the run's, or the agent's worktree (remote jobs run in the clone `git` makes). */
  cwd?: string
  /** A rerun's job: look for it by its key before submitting. */
  reattach?: boolean
  /**
   * The key of an earlier job of the same agent whose folder this one runs in (the row's `work:`): the agent's
   * session was made there (a CLI finds its sessions by the folder it runs in) and its work is there. The job
   * checks out nothing of its own then; when that folder is gone, it checks out its base as any job does.
   */
  work?: string
  /** What the engine says of the job, for the row's Notes: its own job id, the time it waited in the queue. */
  onNotes?: (notes: Record<string, string | undefined>) => void
}

export interface HostRun extends SpawnResult {
  /** The host stayed unreachable for longer than its lease: the attempt's fate is unknown. */
  lost?: boolean
  /** The job was already there (a rerun re-attached, or a submit's answer was lost): its output was replayed. */
  attached?: boolean
  /** The job had ended before this run found it: when, by the job's own record (ms). */
  endedAt?: number
  /**
   * The job never started its agent (a container left `created`, a queued job gone from the queue, a job folder
   * whose script never began), and the engine confirmed it ended: the attempt goes again under a new key
   * without counting as one.
   */
  notStarted?: boolean
}

/** The result of a job, brought home: a commit on the agent's branch, or nothing to merge. */
export type Collected = {ok: true; commit?: string} | {ok: false; reason: string}

/**
 * Where an attempt's process runs. A runner says what to run; a host says
 * where, and streams its stdout lines back so the runner parses them as if
 * it ran here. Every job is named by the attempt's key, written in the plan
 * before anything is submitted: submitting a key twice attaches to the job
 * it names instead of starting a second one (the write-ahead log's promise).
 * Engines that fit the same shape: Slurm (`--job-name`), Kubernetes (a Job's name).
 */
export interface Host {
  spec: HostSpec
  /** Submit the job, or attach to the one the key already names (output replayed from byte 0, then followed); resolves when it ended. */
  run(job: HostJob, command: HostCommand): Promise<HostRun>
  /** Fetch the job's result commit into `refs/heads/<branch>` of `root`, checking that it carries the job's key (fencing). */
  collect(job: {key: string; root: string; branch: string; base: string}): Promise<Collected>
  /**
   * End each job's whole process group if it still runs, and forget it (Ctrl-C; a collected result; a lost attempt's leftover).
   * `true` when the engine knows every one of them is gone (its removal ran to its end there); otherwise a caller that must
   * know lists the host again.
   */
  cancel(keys: readonly string[]): Promise<void | boolean>
  /** Keys of the jobs the host holds whose names start with `prefix`. */
  list(prefix: string): Promise<string[] | undefined>
  /** Problems with running agents there (unreachable, no git, a CLI missing or logged out), one line each with the fix. */
  preflight(executables: readonly string[], auth?: readonly AuthCheck[]): Promise<string[]>
  /**
   * What became of a job a rerun's row names, read at once (engines whose jobs live on this machine): `running`,
   * `ended` (its end is there to collect), `missing` (never started), `stopped` (Ctrl-C ended it), `dead` (it
   * ended without an end). Its start, when it started.
   */
  status?(key: string): {state: 'missing' | 'running' | 'ended' | 'stopped' | 'dead'; startedAt?: number}
  /** Close shared connections. */
  close(): Promise<void>
}
