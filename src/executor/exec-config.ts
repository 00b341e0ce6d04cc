import type {Agent, Budget} from '../plan/types.js'

/** What a run is asked to do; fixed for the run. */
export interface ExecConfig {
  concurrency: number
  maxAttempts: number
  failFast: boolean
  /** Whether the agent's runner can resume a recorded session. */
  canResume: (agent: string) => boolean
  /** An Agent ID drawn before the launch (claude and gemini `--session-id`, shell), or undefined. */
  newAgentId: (agent: string) => string | undefined
  /** Whether the agent is a child plan (it takes a share of the cap, not one slot). */
  childPlan: (agent: string) => boolean
  /** Whether attempts go through git (a base, a snapshot, a scope check). */
  git: boolean
  /** The log file of an attempt (shown in the `launched` event). */
  logFile: (agent: string, attempt: number) => string
  /** The first rate-limit pause (ms); doubles, capped at 15 minutes. */
  rateLimitPauseMs: number
  /**
   * The most one agent may keep the run paused in total (rate limits, network or server trouble), in ms:
   * a pause that would go beyond it fails the attempt instead, with the cause in its note. Default 30 minutes.
   */
  maxPauseMs?: number
  /**
   * The account an agent's attempts use on a host (`claude on local`: its runner there, the credentials it
   * uses): a usage limit stops launches on that account only. Absent: one account for every agent.
   */
  account?: (agent: string, host: string | undefined) => string
  /**
   * The most attempts that may run at once on the account an agent would use on a host (front matter or host
   * `accounts:`, else its runner's default; docs/limits.md, "Accounts"); undefined: no cap. A child plan's
   * attempts count toward `concurrency` only. Absent: no account has a cap.
   */
  accountCap?: (agent: string, host: string | undefined) => number | undefined
  /**
   * When only a usage limit's reset stands between the run and its next launch: wait in the foreground
   * (`--wait-for-reset`), or end the run saying when to run again (the default).
   */
  waitForReset?: boolean
  /** After a reset the CLI named, how much longer before launching there again (default 30 s). */
  resetMarginMs?: number
  /**
   * The plan's budget for this run (front matter `budget`, or `--budget`): what every attempt of every run
   * may spend in all, the share at which the run says so, and whether reaching it ends the running agents
   * (`on_budget: stop`) or lets them finish. Absent: no budget. Agents' own budgets are in their definitions.
   */
  budget?: {limit: Budget; warnAt: number; stop: boolean}
  /** Where agents run, when the plan declares hosts (without: this machine, as always). */
  hosts?: HostsConfig
  /**
   * This machine's attempts as jobs (src/hosts/local/): each gets a key, written in its row before it starts,
   * and a rerun goes back to the job its row names when that job can be gone back to. Absent: attempts here
   * are plain processes of the run (the executor's own tests).
   */
  localJobs?: LocalJobsConfig
  /**
   * Whether an agent's work waits for a person's review when it completes (its `review:`, or the front
   * matter's): it is held, unmerged, its row `awaiting_review`, until a person approves it. Absent: never.
   */
  review?: (agent: Agent) => boolean
  /**
   * Why an agent's current definition cannot be placed in this run (its `host` names a host the run does not
   * have): it is held, never launched, until a save fixes it. Absent: every definition can be placed.
   */
  unplaceable?: (agent: Agent) => string | undefined
}

/** Placement: the scheduler puts a ready agent on the host of its pool with the most free slots. */
export interface HostsConfig {
  /** The hosts an agent may run on (its own `host`, `--host`, or the front matter's `host:`), read from its current definition. */
  pool: (agent: string, definition: Agent) => readonly string[]
  /** Attempts a host takes at once (`local`: no limit of its own). */
  slots: (host: string) => number
  /** Attempts there are jobs named by a key written before they are submitted. */
  remote: (host: string) => boolean
  /** A new attempt's key, drawn here because `step` has no randomness. */
  newKey: (agent: string, attempt: number) => string
  /** When a live job a rerun re-attaches to was first launched (ms), if the run log says: its attempt is timed from then. */
  launchedAt?: (key: string) => number | undefined
}

/** What the executor needs of this machine's jobs: keys, and what a rerun found of the jobs its rows name. */
export interface LocalJobsConfig {
  /** A new attempt's key, drawn here because `step` has no randomness. */
  newKey: (agent: string, attempt: number) => string
  /** Whether the job a rerun's row names is to be gone back to (running, ended, or never started). */
  reattach: (key: string) => boolean
  /** When that job started (ms): its attempt is timed from then. */
  launchedAt?: (key: string) => number | undefined
}
