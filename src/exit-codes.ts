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
  /** Interrupted (Ctrl-C / SIGTERM / SIGHUP). */
  interrupted: 130
} as const

export type ExitCode = (typeof exitCodes)[keyof typeof exitCodes]
