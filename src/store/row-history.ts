import type {RowState, TableMeta, TableState} from './table-state.js'

/** What one version changed: rows (null: the row went away) and, when it changed, the meta lines. */
export interface TableDelta {
  rows: Array<[string, RowState | null]>
  meta?: TableMeta
}

/**
 * How many values of one row are kept. A row changes a few times per attempt
 * (pending, in_progress, completed, its ID and Duration): a version older than
 * a row's oldest kept value is not rebuilt (a base it cannot be sure of).
 */
const perRow = 64
/** How many versions' meta lines are kept (the stamp that finds a buffer's version). */
const versions = 16_384
/** How many versions of one `Last updated:` stamp are tried as a buffer's base (a fast run writes many per second). */
const perStamp = 256

interface RowLine {
  entries: Array<{seq: number; row: RowState | null}>
  /** Whether older values were dropped: before the first kept one, the row is unknown, not absent. */
  cut: boolean
  /**
   * The caller's row object last recorded (its copy is the last entry): the same object again is the same
   * row, with no cell compared. Rows are replaced, never changed in place, once a table holds them (the
   * executor and the store copy a row before they change it), so a write touching one row of a thousand
   * costs a lookup per row, not a comparison of every cell.
   */
  seen?: RowState
}

/**
 * Every table mdplan wrote, kept compact: per row, the values it held and
 * from which version on; per version, its meta lines. Memory grows with the
 * changes, not with versions × rows, and is bounded (`perRow`, `versions`).
 * Any version still covered is rebuilt whole, so a hand edit made in a buffer
 * loaded thousands of versions ago (found by its `Last updated:` line) is
 * merged from the table that buffer really held.
 */
export class RowHistory {
  readonly #rows = new Map<string, RowLine>()
  #metas: Array<{seq: number; meta: TableMeta}> = []
  #last: TableMeta | undefined
  /** How many rows hold a value (not gone) in the last version: a table of as many rows, all known, lost none. */
  #present = 0

  /** Record the table of version `seq`; returns what changed since the last one (for the history file). */
  record(seq: number, state: TableState): TableDelta {
    const rows: TableDelta['rows'] = []
    const seen: Array<[string, RowState]> = []
    let known = 0
    for (const [agent, row] of state.rows) {
      const line = this.#rows.get(agent)
      if (line && line.seen === row) {
        known++
        continue
      }
      const last = line?.entries.at(-1)?.row
      if (last) known++
      if (!last || !sameRow(last, row)) rows.push([agent, copyRow(row)])
      seen.push([agent, row])
    }
    // Every row that holds a value is in this table: none went away, no need to look for one.
    if (known !== this.#present) for (const [agent, line] of this.#rows) if (!state.rows.has(agent) && line.entries.at(-1)?.row) rows.push([agent, null])
    const meta = this.#last && sameMeta(this.#last, state.meta) ? undefined : {...state.meta}
    const delta = meta ? {rows, meta} : {rows}
    this.apply(seq, delta)
    for (const [agent, row] of seen) this.#rows.get(agent)!.seen = row
    return delta
  }

  /** Record a version read back from the history file. */
  apply(seq: number, delta: TableDelta): void {
    for (const [agent, row] of delta.rows) {
      let line = this.#rows.get(agent)
      if (!line) this.#rows.set(agent, (line = {entries: [], cut: false}))
      this.#present += (row ? 1 : 0) - (line.entries.at(-1)?.row ? 1 : 0)
      line.entries.push({seq, row})
      line.seen = undefined
      if (line.entries.length > 2 * perRow) {
        line.entries = line.entries.slice(-perRow)
        line.cut = true
      }
    }
    if (delta.meta) this.#last = delta.meta
    if (!this.#last) return
    this.#metas.push({seq, meta: this.#last})
    if (this.#metas.length > 2 * versions) this.#metas = this.#metas.slice(-versions)
  }

  /**
   * A version whose changes are not known (a line of the history file damaged
   * mid-file): every table before it is forgotten, and each row is unknown
   * until its next value, so no table is rebuilt with a value that was no
   * longer there.
   */
  forget(): void {
    if (this.#metas.length === 0) return
    for (const line of this.#rows.values()) {
      line.entries = []
      line.cut = true
      line.seen = undefined
    }
    this.#present = 0
    this.#metas = []
    this.#last = undefined
  }

  /** The last table recorded, or undefined when none was. */
  latest(): TableState | undefined {
    const last = this.#metas.at(-1)
    return last && this.at(last.seq)
  }

  /**
   * The versions whose `Started:` and `Last updated:` lines are `meta`'s, newest
   * first (at most `perStamp`). Both: a stamp has a second's precision, and the
   * next run may write its first version in the second the last one ended.
   */
  stamped(meta: TableMeta): number[] {
    const found: number[] = []
    for (let i = this.#metas.length - 1; i >= 0 && found.length < perStamp; i--) {
      const known = this.#metas[i]!.meta
      if (known.lastUpdated === meta.lastUpdated && (known.started ?? '') === (meta.started ?? '')) found.push(this.#metas[i]!.seq)
    }
    return found
  }

  /**
   * The table of version `seq`; undefined when that version is older than the
   * meta lines kept, or a row's values that far back were dropped and
   * `unknown` gives none for it (null: leave the row out; a caller that takes
   * the saved row there reads no edit in that row alone, rather than every
   * cell of the table).
   */
  at(seq: number, unknown?: (agent: string) => RowState | null | undefined): TableState | undefined {
    const meta = find(this.#metas, seq)
    if (!meta) return undefined
    const rows = new Map<string, RowState>()
    for (const [agent, line] of this.#rows) {
      const entry = find(line.entries, seq)
      const row = entry ? entry.row : line.cut ? unknown?.(agent) : null
      if (row === undefined) return undefined
      if (row) rows.set(agent, row)
    }
    return {rows, meta: meta.meta}
  }
}

/** The last entry at or before `seq` (entries in order). */
function find<T extends {seq: number}>(entries: readonly T[], seq: number): T | undefined {
  let low = 0
  let high = entries.length - 1
  let found: T | undefined
  while (low <= high) {
    const middle = (low + high) >> 1
    if (entries[middle]!.seq <= seq) {
      found = entries[middle]
      low = middle + 1
    } else high = middle - 1
  }
  return found
}

function copyRow(row: RowState): RowState {
  return {...row, extra: {...row.extra}}
}

export function sameRow(a: RowState, b: RowState): boolean {
  if (a === b) return true
  if (a.status !== b.status || a.agentId !== b.agentId || a.duration !== b.duration || a.notes !== b.notes || a.held !== b.held) return false
  const keys = Object.keys(a.extra)
  return keys.length === Object.keys(b.extra).length && keys.every((key) => a.extra[key] === b.extra[key])
}

function sameMeta(a: TableMeta, b: TableMeta): boolean {
  return a.started === b.started && a.lastUpdated === b.lastUpdated && a.build === b.build && a.integration === b.integration
}
