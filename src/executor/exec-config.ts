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
}
