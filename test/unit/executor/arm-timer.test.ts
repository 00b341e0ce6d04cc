import {describe, expect, it} from 'vitest'
import {armTimer} from '../../../src/executor/arm-timer.js'

describe('armTimer', () => {
  // Node's timers run on the monotonic clock, Date.now() on the wall clock: a pause's tick came before the
  // pause's end by the executor's clock, launched nothing, armed nothing, and mdplan exited 13 mid-run.
  it('never calls back before `at` by the clock it is given, even when the timer itself fires early', async () => {
    let behind = 0
    const now = (): number => Date.now() - behind
    const at = now() + 20
    const track = new Set<NodeJS.Timeout>()
    const seen = await new Promise<number>((resolve) => {
      armTimer(at, now, () => resolve(now()), track)
      // From here on the clock reads 40 ms behind: the timer, set for 20 ms, fires while now() < at.
      behind = 40
    })
    expect(seen).toBeGreaterThanOrEqual(at)
    expect(track.size).toBe(0)
  })

})
