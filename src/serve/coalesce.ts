/** The clock a coalescer waits on: Node's timers, or a test's. */
export interface Timers {
  set(run: () => void, ms: number): unknown
  clear(handle: unknown): void
}

export interface Coalesced {
  /** Something changed: fire now when the last firing is `ms` ago, else once when it is. */
  poke(): void
  /** Fire now if a poke is waiting (the last state before a server closes). Whether it fired. */
  flush(): boolean
  cancel(): void
}

const nodeTimers: Timers = {
  set: (run, ms) => {
    const timer = setTimeout(run, ms)
    timer.unref()
    return timer
  },
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout)
}

/**
 * At most one `fire` per `ms` while pokes keep coming, and never a poke left unanswered: the first poke after a
 * quiet spell fires at once, the pokes inside the spacing that follows fire once at its end. A run that writes its
 * table hundreds of times a second costs the page's server four views a second, and its last write reaches the
 * page within `ms`.
 */
export function coalesce(fire: () => void, ms: number, timers: Timers = nodeTimers): Coalesced {
  let timer: unknown
  let waiting = false
  const open = (): void => {
    fire()
    timer = timers.set(() => {
      timer = undefined
      if (!waiting) return
      waiting = false
      open()
    }, ms)
  }
  return {
    poke: () => {
      if (timer !== undefined) waiting = true
      else open()
    },
    flush: () => {
      if (!waiting) return false
      waiting = false
      if (timer !== undefined) timers.clear(timer)
      timer = undefined
      fire()
      return true
    },
    cancel: () => {
      waiting = false
      if (timer !== undefined) timers.clear(timer)
      timer = undefined
    }
  }
}
