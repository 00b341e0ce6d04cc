import type {BaseShipping} from './job-archive.js'

/** How many of the host's newest bases a bundle leaves out (the rest of its history comes along). */
const remembered = 64

/** The base commits one host's cache holds, as this coordinator knows them. */
export interface HostBases {
  /** What a job of `base` must carry: nothing, a bundle of what the host lacks, or the whole history. */
  shipping(base: string): BaseShipping
  /**
   * Wait while the first base ever shipped to the host is on its way: one
   * full bundle, not one per launch. True: the caller's submit is that first
   * one, and must `learn` or `release` when it ends.
   */
  turn(): Promise<boolean>
  /** The host holds these (preflight's listing, newest first) or this one (a submit was taken). */
  learn(bases: readonly string[]): void
  /** A submit that carried a bundle ended without taking it: its turn is over. */
  release(): void
  /** The host lacks a base it was thought to hold (its cache removed): ship whole histories again. */
  forget(): void
}

export function hostBases(): HostBases {
  let known: string[] = []
  let first: {done: Promise<void>; resolve: () => void} | undefined
  const release = (): void => {
    first?.resolve()
    first = undefined
  }
  return {
    shipping(base) {
      if (known.includes(base)) return 'none'
      return known.length === 0 ? 'full' : {not: known}
    },
    async turn() {
      while (known.length === 0 && first) await first.done
      if (known.length > 0) return false
      let resolve!: () => void
      const done = new Promise<void>((r) => (resolve = r))
      first = {done, resolve}
      return true
    },
    learn(bases) {
      known = [...new Set([...bases, ...known])].slice(0, remembered)
      release()
    },
    release,
    forget() {
      known = []
    }
  }
}
