import {createHash} from 'node:crypto'
import type {Outside} from './merge-outside.js'
import type {TableState} from './table-state.js'

/** How many recent tables are kept whole, to find the one a hand edit started from. */
const recentStates = 12
/** How many recent versions of the text outside the section are kept, to find where a save started from. */
const recentOutsides = 32

/**
 * What this store wrote, for the whole run: a hash of every version of the
 * state section (a save that brings one back is a stale buffer, however old),
 * the last few tables whole (the base of a hand edit made in an older buffer)
 * and the last few versions of the rest of the file.
 */
export class WrittenVersions {
  readonly #hashes = new Set<string>()
  #states: TableState[] = []
  #outsides: Outside[] = []

  /**
   * Record a version on disk: its section's text and the table it holds (when
   * the table is mdplan's, with no hand edit waiting in it), the text around
   * it (section cut out).
   */
  remember(section: string | Uint8Array | undefined, state: TableState | undefined, outside: Outside | undefined): void {
    if (section !== undefined) this.#hashes.add(hash(section))
    if (state && this.#states[0] !== state) this.#states = [state, ...this.#states].slice(0, recentStates)
    const first = this.#outsides[0]
    if (outside && !(first && first.before === outside.before && first.after === outside.after)) {
      this.#outsides = [outside, ...this.#outsides.filter((known) => known.before !== outside.before || known.after !== outside.after)].slice(0, recentOutsides)
    }
  }

  /** Whether mdplan wrote (or read at the start) exactly this section. */
  wrote(section: string): boolean {
    return this.#hashes.has(hash(section))
  }

  get outsides(): readonly Outside[] {
    return this.#outsides
  }

  /**
   * The recent table `theirs` differs from in the fewest cells: the version a
   * person's buffer held when they edited it (`latest` wins ties), so a cell
   * they did not touch is not read as a change back to an older value.
   */
  parentOf(theirs: TableState, latest: TableState): TableState {
    let best = latest
    let fewest = distance(theirs, latest, Infinity)
    // One cell changed in the latest version: the usual hand edit, no older version can be closer.
    if (fewest <= 1) return latest
    for (const state of this.#states) {
      if (fewest === 0) break
      if (state === latest) continue
      const d = distance(theirs, state, fewest)
      if (d < fewest) {
        fewest = d
        best = state
      }
    }
    return best
  }
}

/** The same digest for a text and for its UTF-8 bytes. */
function hash(text: string | Uint8Array): string {
  return createHash('sha1').update(text).digest('base64')
}

/** Cells that differ; `Last updated:` counts double, as it tells mdplan's versions apart (a revert of one cell is not a version). */
function distance(theirs: TableState, state: TableState, stopAt: number): number {
  let d = theirs.meta.lastUpdated === state.meta.lastUpdated ? 0 : 2
  for (const [agent, row] of theirs.rows) {
    if (d >= stopAt) return d
    const other = state.rows.get(agent)
    if (!other) {
      d += 4
      continue
    }
    if (row.status !== other.status) d++
    if (row.agentId !== other.agentId) d++
    if (row.duration !== other.duration) d++
    if (row.notes !== other.notes) d++
    for (const column in row.extra) if (row.extra[column] !== (other.extra[column] ?? '')) d++
  }
  return d
}
