import {describe, expect, it} from 'vitest'
import {coalesce, type Timers} from '../../../src/serve/coalesce.js'

/** A clock the test moves: timers run when `advance` passes their time. */
function fakeClock(): Timers & {now: number; advance(ms: number): void} {
  const due: Array<{at: number; run: () => void; id: number}> = []
  let ids = 0
  const clock = {
    now: 0,
    set: (run: () => void, ms: number) => {
      const id = ++ids
      due.push({at: clock.now + ms, run, id})
      return id
    },
    clear: (handle: unknown) => {
      const i = due.findIndex((timer) => timer.id === handle)
      if (i !== -1) due.splice(i, 1)
    },
    advance: (ms: number) => {
      const end = clock.now + ms
      for (;;) {
        due.sort((a, b) => a.at - b.at)
        const next = due[0]
        if (!next || next.at > end) break
        due.shift()
        clock.now = next.at
        next.run()
      }
      clock.now = end
    }
  }
  return clock
}

describe('coalesced changes', () => {
  it('the first change after a quiet spell fires at once; the changes inside the spacing fire once at its end', () => {
    const clock = fakeClock()
    const fired: number[] = []
    const changes = coalesce(() => fired.push(clock.now), 250, clock)
    changes.poke()
    expect(fired).toEqual([0])
    for (let t = 0; t < 10; t++) {
      clock.advance(10)
      changes.poke()
    }
    expect(fired).toEqual([0])
    clock.advance(150)
    expect(fired).toEqual([0, 250])
    // Quiet: the spacing ends with nothing to tell, and the next change fires at once.
    clock.advance(1000)
    expect(fired).toEqual([0, 250])
    changes.poke()
    expect(fired).toEqual([0, 250, 1250])
  })

  it('at most one firing per spacing while changes keep coming, and never a change left unanswered', () => {
    const clock = fakeClock()
    const fired: number[] = []
    const changes = coalesce(() => fired.push(clock.now), 250, clock)
    let lastPoke = 0
    // A run's writes: hundreds a second for three seconds, at uneven times.
    for (let i = 0; i < 900; i++) {
      clock.advance((i * 7) % 5)
      changes.poke()
      lastPoke = clock.now
    }
    clock.advance(5000)
    for (let i = 1; i < fired.length; i++) expect(fired[i]! - fired[i - 1]!).toBeGreaterThanOrEqual(250)
    expect(fired.length).toBeLessThanOrEqual(Math.ceil(lastPoke / 250) + 1)
    // The last change was told: a firing at or after it.
    expect(fired[fired.length - 1]).toBeGreaterThanOrEqual(lastPoke)
  })

  it('flush tells a waiting change now (a server closing); cancel forgets it', () => {
    const clock = fakeClock()
    let fired = 0
    const changes = coalesce(() => fired++, 250, clock)
    changes.poke()
    changes.poke()
    expect(fired).toBe(1)
    expect(changes.flush()).toBe(true)
    expect(fired).toBe(2)
    expect(changes.flush()).toBe(false)
    clock.advance(1000)
    expect(fired).toBe(2)
    changes.poke()
    changes.poke()
    changes.cancel()
    clock.advance(1000)
    expect(fired).toBe(3)
  })
})
