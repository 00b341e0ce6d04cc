export interface WriteOptions {
  /** The agents running now: a hand edit to one of their rows is not taken. */
  running: ReadonlySet<string>
  /**
   * The caller never changes the result's `state` (the executor replaces rows,
   * never edits one): it gets the store's own table instead of a copy of every row.
   */
  readOnly?: boolean
}
