/** Exit codes of every mdplan command (documented in docs/running.md, "Exit codes"). */
export const exitCodes = {
  /** All agents completed and verification passed (or: the command succeeded). */
  ok: 0,
  /** Something failed, waits for an answer, or is blocked. */
  failed: 1,
  /** Invalid plan or arguments: nothing launched, the file untouched. */
  invalid: 2,
  /** Another run holds the plan's lock. */
  locked: 3,
  /**
   * Usage limits: what is left can launch only after an account's limit resets (the plan's wait lines say
   * when); run again then, or with `--wait-for-reset`.
   */
  limited: 4,
  /**
   * Budget: what the agents have spent reached the plan's budget, so nothing more launched (the plan's
   * `budget reached:` line says how much); raise the budget and run again to go on.
   */
  budget: 5,
  /** Interrupted (Ctrl-C / SIGTERM / SIGHUP). */
  interrupted: 130
} as const

export type ExitCode = (typeof exitCodes)[keyof typeof exitCodes]
