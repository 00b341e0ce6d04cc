/** Notes items to set (a string) or remove (undefined) on an agent's row. */
export type NotePatch = Record<string, string | undefined>

export interface LaunchGit {
  /** Where the agent runs: its worktree, or the run's folder. */
  cwd: string
  notes: NotePatch
  /** Things to tell the person before the agent goes on (files changed under it since its base). */
  warnings: string[]
  /** The worktree could not be made: the attempt fails with this reason. */
  error?: string
}

export interface CompletionGit {
  notes: NotePatch
  /** The agent must fail after all (a merge conflict, or `--strict-scope` and a violation). */
  fail?: string
  warnings: string[]
}
