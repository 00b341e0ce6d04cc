export interface PlanStoreOptions {
  /** The clock that stamps `Last updated:` (tests pin it). */
  now?: () => Date
  /** How long a write may keep losing races to other writers before it fails (default 60 s). */
  giveUpAfterMs?: number
  /** Keep the versions of the table across runs, under `.mdplan/versions/` (a run does; a one-off write need not). */
  history?: boolean
  /**
   * The plan as committed (git's HEAD), when it is: a table found at the open that is the committed one
   * was checked out on purpose (taken as found); any other earlier table is an editor's stale buffer.
   */
  committed?: Promise<string | undefined>
}
