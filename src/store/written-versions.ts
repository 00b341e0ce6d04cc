import {createHash} from 'node:crypto'
import type {Outside} from './merge-outside.js'
import {cells, mergeState, type HumanEdit} from './merge-state.js'
import {statusCell, untouchedRow, type RowState, type TableState} from './table-state.js'
import {RowHistory} from './row-history.js'
import type {HistoryEntry, VersionHistory} from './version-history.js'

/** How many recent tables are kept whole, to find the one a hand edit started from (older ones are rebuilt from `RowHistory`). */
const recentStates = 12
/** How many recent versions of the text outside the section are kept, to find where a save started from. */
const recentOutsides = 32
/** How many of a person's merged edits are kept, to tell an undo of one from a stale buffer. */
const recentEdits = 1024

/**
 * What mdplan wrote: a hash of every version of the state section, in order
 * (a save that brings one back is a stale buffer, however old), the edits of
 * a person it merged, in the same order (a save that brings back a version
 * older than one of them undoes it), every table it wrote, compact (per row,
 * the values mdplan gave it: the base of a hand edit made in a buffer loaded
 * however long ago) and the last few versions of the rest of the file. With a
 * history, the versions, tables and edits of earlier stores of the plan
 * (earlier runs) come first, and this store's are added to it.
 */
export class WrittenVersions {
  /** Digest → the position of the last time that section was on disk. */
  readonly #hashes = new Map<string, number>()
  #seq = 0
  #edits: Array<{seq: number; edit: HumanEdit}> = []
  /** Digests of the tables runs started from (`git checkout plan.md` brings one back on purpose). */
  readonly #opens = new Set<string>()
  readonly #history: VersionHistory | undefined
  #states: TableState[] = []
  /** Every table written, row by row: older tables are a base only for a save that still has their stamp. */
  readonly #tables = new RowHistory()
  #outsides: Outside[] = []
  readonly #told = new Set<string>()

  constructor(history?: VersionHistory) {
    this.#history = history
    if (history) for (const entry of history.load()) this.#add(entry)
  }

  /** `recording`: this store's own version, whose table `remember` records next. */
  #add(entry: HistoryEntry & {open?: boolean}, recording = false): number {
    const seq = ++this.#seq
    if ('version' in entry) {
      if (entry.open) this.#opens.add(entry.version)
      this.#hashes.delete(entry.version)
      this.#hashes.set(entry.version, seq)
      // A version line with no rows after ones with them: damaged (an older mdplan's lines come before any with rows).
      if (entry.delta) this.#tables.apply(seq, entry.delta)
      else if (!recording) this.#tables.forget()
    } else {
      this.#edits.push({seq, edit: entry.edit})
      if (this.#edits.length > 2 * recentEdits) this.#edits = this.#edits.slice(-recentEdits)
    }
    return seq
  }

  /** A person's edits, merged into the version remembered next. */
  edited(edits: readonly HumanEdit[], held = false): void {
    const entries = edits.map((edit) => ({edit}))
    for (const entry of entries) this.#add(entry)
    this.#history?.append(entries, held)
  }

  /**
   * Record a version on disk: its section's text and the table it holds (when
   * the table is mdplan's, with no hand edit waiting in it), the text around
   * it (section cut out).
   */
  remember(section: string | Uint8Array | undefined, state: TableState | undefined, outside: Outside | undefined, open = false, startsFrom?: TableState): void {
    if (open && startsFrom) {
      // A run starts from another table than the file's stale one: that one is no version it starts from
      // (the next start must find it stale again), and only what the person changed in it is their edit.
      this.edited(betweenRuns(this.#tables.latest(), startsFrom), true)
      section = undefined
      state = startsFrom
    }
    if (section !== undefined) {
      const version = hash(section)
      // The same section again (a write that changed nothing): no new line in the history. A run's start
      // is written anyway: the history keeps the tables runs started from longest (a checkout brings those back).
      if (open || this.#hashes.get(version) !== this.#seq) {
        // What a person changed between runs (the table the last run left, and this one): an undo of it in the editor is an undo.
        if (open && state) this.edited(betweenRuns(this.#tables.latest(), state), true)
        const seq = this.#add({version, open}, state !== undefined)
        const delta = state && this.#tables.record(seq, state)
        this.#history?.append([{version, open, ...(delta && {delta})}])
      }
    }
    if (state && this.#states[0] !== state) this.#states = [state, ...this.#states].slice(0, recentStates)
    if (open && state && !startsFrom) this.#history?.keepTable(state)
    const first = this.#outsides[0]
    if (outside && !(first && first.before === outside.before && first.after === outside.after)) {
      this.#outsides = [outside, ...this.#outsides.filter((known) => known.before !== outside.before || known.after !== outside.after)].slice(0, recentOutsides)
    }
  }

  /**
   * The person's edits merged after this section was last on disk, oldest
   * first (a save of it undoes them); undefined when mdplan never wrote or
   * read the section (at a start), in this run or an earlier one.
   */
  editsAfter(section: string): HumanEdit[] | undefined {
    const seq = this.#hashes.get(hash(section))
    if (seq === undefined) return undefined
    return this.#edits.filter((entry) => entry.seq > seq).map((entry) => entry.edit)
  }

  /**
   * At a run's start, the table to start from when the file's is a stale one: the table the last run
   * left (the history's latest), with only what a person changed in their buffer. Undefined when the
   * file's table is the last run's (edits on it included), the committed plan's (`committed`: it is git's HEAD's;
   * a `git checkout` of the plan between runs, taken as found), or no history says otherwise. Any other
   * table an earlier run wrote or started from is an editor's buffer loaded then. `kept`: agents whose
   * Status the file's table would have set back.
   */
  startingTable(section: string, found: TableState, committed = false): {state: TableState; kept: string[]} | undefined {
    const latest = this.#tables.latest()
    if (!latest || distance(found, latest, 1) === 0) return undefined
    // The committed plan's table, checked out (or stashed back) between runs, or a table in which no agent
    // has run (the plan as first written, copied back to start over): a reset, taken as found.
    if (committed || [...found.rows.values()].every(untouchedRow)) return undefined
    const version = hash(section)
    const state = this.#hashes.has(version) ? latest : (this.#merged(found, latest) ?? olderAttempts(found, latest))
    if (!state) return undefined
    const kept = [...found.rows].filter(([agent, row]) => state.rows.has(agent) && statusCell(state.rows.get(agent)!) !== statusCell(row)).map(([agent]) => agent)
    return {state, kept}
  }

  /**
   * A table no version had: the person's cells, merged from the version their buffer held, if that is an
   * older one. Only a table stamped otherwise than the last run's end can be an older buffer: one with
   * that stamp is the person's edit of the table the last run left (a re-queue between runs), as found.
   */
  #merged(found: TableState, latest: TableState): TableState | undefined {
    if (found.meta.lastUpdated === latest.meta.lastUpdated) return undefined
    const parent = this.parentOf(found, latest)
    if (parent === latest) return undefined
    return mergeState(parent, latest, found, new Set()).state
  }

  /** Whether `key` is new to this store (a notice about one stale version is given once, however often it is saved). */
  firstTime(key: string): boolean {
    const digest = hash(key)
    if (this.#told.has(digest)) return false
    this.#told.add(digest)
    return true
  }

  get outsides(): readonly Outside[] {
    return this.#outsides
  }

  /**
   * The recent table `theirs` differs from in the fewest cells: the version a
   * person's buffer held when they edited it (`latest` wins ties), so a cell
   * they did not touch is not read as a change back to an older value. The
   * older tables of this run and the tables earlier runs started from count
   * too (a buffer loaded long ago, or before the run that was stopped, and
   * edited now), but only one whose `Last updated:` the save still has: a
   * person who clears rows of the current table (a bulk re-queue) makes a
   * table close to an old one, and must not have it read as that old buffer
   * (its `Started:` too: the next run may stamp its first write in the second
   * the last run ended). Those are rebuilt from the row history, however many
   * versions ago.
   */
  parentOf(theirs: TableState, latest: TableState): TableState {
    let best = latest
    let fewest = distance(theirs, latest, Infinity)
    // One cell changed in the latest version: the usual hand edit, no older version can be closer.
    if (fewest <= 1) return latest
    const stamp = theirs.meta.lastUpdated
    const history = this.#history
    const tables = this.#tables
    // Lazily, newest first: the search stops at a table the save matches exactly.
    function* candidates(recent: readonly TableState[]): Generator<TableState> {
      yield* recent
      for (const seq of tables.stamped(theirs.meta)) {
        // A row changed more often than its values are kept: the saved row there (no edit read in it), not a guess.
        const state = tables.at(seq, (agent) => theirs.rows.get(agent) ?? null)
        if (state) yield state
      }
      for (const state of history?.tables() ?? []) if (state.meta.lastUpdated === stamp && (state.meta.started ?? '') === (theirs.meta.started ?? '')) yield state
    }
    for (const state of candidates(this.#states)) {
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

/** The cells of rows both tables have that differ (rows and meta lines that come or go are mdplan's, not a person's). */
function betweenRuns(last: TableState | undefined, now: TableState): HumanEdit[] {
  const edits: HumanEdit[] = []
  if (!last) return edits
  for (const [agent, row] of now.rows) {
    const was = last.rows.get(agent)
    if (!was) continue
    for (const [cell, column] of cells) {
      const from = cell === 'status' ? statusCell(was) : was[cell]
      const to = cell === 'status' ? statusCell(row) : row[cell]
      if (from !== to) edits.push({agent, column, from, to})
    }
  }
  return edits
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

/**
 * The found table with each row that shows an earlier moment of the same attempt than the last run's
 * table (`in_progress` with the Agent ID the last run then recorded `completed`, `failed`,
 * `needs_input` or `awaiting_review`) replaced by the last run's row: no person types a running row back, an editor buffer
 * loaded in the second before the run's last write does. Undefined when there is none.
 */
function olderAttempts(found: TableState, latest: TableState): TableState | undefined {
  let rows: Map<string, RowState> | undefined
  for (const [agent, row] of found.rows) {
    const last = latest.rows.get(agent)
    if (!last || row.status !== 'in_progress' || row.agentId === '' || row.agentId !== last.agentId) continue
    if (last.status !== 'completed' && last.status !== 'failed' && last.status !== 'needs_input' && last.status !== 'awaiting_review') continue
    rows ??= new Map(found.rows)
    rows.set(agent, last)
  }
  return rows && {rows, meta: found.meta}
}
