/**
 * The reason a run aborts a remote attempt with once it lost its run lock: stop following the job and
 * leave it running, never cancel it. The new owner of the lock reads the row's `job: <host> <key>` and
 * may follow that very job already; cancelling it would end the new owner's attempt and make it run the
 * agent a second time. (Ctrl-C and a timeout still cancel: no other run owns the attempt then.)
 */
export class DetachRequest extends Error {
  constructor(why: string) {
    super(`detached from the job: ${why}`)
    this.name = 'DetachRequest'
  }

  /** The attempt's signal asks to detach (leave the job running), not to cancel it. */
  static asked(signal: AbortSignal | undefined): boolean {
    return signal?.aborted === true && signal.reason instanceof DetachRequest
  }
}
