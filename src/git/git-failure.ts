/** A git step that did not work, as a value: the executor notes `reason` and goes on. */
export interface GitFailure {
  ok: false
  /** One line, e.g. `git worktree add: fatal: '…' already exists`. */
  reason: string
}
