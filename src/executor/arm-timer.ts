/**
 * Call `due` once `now()` has reached `at`, never before. A Node timer runs on
 * the monotonic clock; `Date.now()`, which the executor reads, is the wall
 * clock, which NTP slews and steps (this VM's did): a timer set for a pause's
 * end can fire before that end by `now()`. The tick then launched nothing and
 * armed nothing, and with no agent running Node's loop drained: mdplan exited
 * 13 mid-run, with no output, its lock left behind (gemini's dropped stream in
 * `npm run test:clis`, 3 times in about 10). An early timer waits out the rest.
 * `track` holds the pending handle, so a finishing run can clear it.
 */
export function armTimer(at: number, now: () => number, due: () => void, track: Set<NodeJS.Timeout>): void {
  const timer = setTimeout(
    () => {
      track.delete(timer)
      if (now() < at) armTimer(at, now, due, track)
      else due()
    },
    Math.max(0, at - now())
  )
  track.add(timer)
}
