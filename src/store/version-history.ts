import fs from 'node:fs'
import {basename, dirname, join} from 'node:path'
import {makeDir} from '../util/make-dir.js'
import type {HumanEdit} from './merge-state.js'
import {planTarget} from './plan-target.js'
import type {TableDelta} from './row-history.js'
import type {RowState, TableState} from './table-state.js'

/**
 * One line of a plan's history: a version of its state section on disk (by
 * digest, with the rows and meta lines it changed), or a person's edit mdplan merged.
 */
export type HistoryEntry = {version: string; delta?: TableDelta} | {edit: HumanEdit}

/**
 * Past this many lines, or bytes, the file is cut back at the next open (a
 * 1000-agent run writes a few thousand versions, a line each, most of them one
 * or two rows long): a buffer loaded up to about 16384 versions ago is rebuilt.
 */
const maxLines = 32_768
const maxBytes = 16 << 20
/** What a cut keeps: the newest lines, and every version read at a run's start (a `git checkout` brings those back). */
const keepLines = 16_384
const keepBytes = 8 << 20
const keepOpens = 256
/** How many of the tables runs started from are kept whole (the base of an edit made in a buffer that old). */
const keepTables = 8

/**
 * What mdplan wrote into a plan, kept across runs: `.mdplan/versions/<plan
 * file>.log` beside the plan (beside its target when it is a symlink, like the
 * journal and the lock; the file's own name is its key, so two plans in one
 * folder never share one). One JSON line per version of the state section
 * (its digest; `open` when read at a store's start; the rows and meta lines it
 * changed: a cut writes the whole table into the first line it keeps) and per
 * cell a person changed, oldest first. A store that opens the plan again (the next run, a
 * resumed one) knows every table an earlier run wrote or started from, so an
 * editor buffer or a `git checkout` that brings one back is taken for what it
 * is. Best effort: a history that cannot be read or written only makes the
 * next run know less, never stops a run.
 */
export class VersionHistory {
  readonly file: string
  /** The tables the last few runs started from, whole, newest first: `<plan file>.tables.json` beside the log. */
  readonly tablesFile: string
  #broken = false
  #tables: TableState[] | undefined
  /**
   * What a store's open recorded (the version it started from, the table kept whole), written with the
   * first entry of anything else: a run refused before it writes (a bad template, a missing CLI) leaves
   * nothing beside the plan, as it leaves the plan itself.
   */
  #held: {text: string; tables: boolean} = {text: '', tables: false}
  #torn = false

  constructor(planFile: string) {
    const target = planTarget(planFile)
    this.file = join(dirname(target), '.mdplan', 'versions', `${basename(target)}.log`)
    this.tablesFile = join(dirname(target), '.mdplan', 'versions', `${basename(target)}.tables.json`)
  }

  /** The tables earlier runs started from, newest first. */
  tables(): TableState[] {
    if (this.#tables) return this.#tables
    this.#tables = []
    try {
      const saved = JSON.parse(fs.readFileSync(this.tablesFile, 'utf8')) as Array<{rows: Array<[string, RowState]>; meta: TableState['meta']}>
      for (const table of saved) this.#tables.push({rows: new Map(table.rows.map(([agent, row]) => [agent, {...row, extra: {...row.extra}}])), meta: {...table.meta}})
    } catch {
      // None yet, or unreadable: this run knows only its own tables.
    }
    return this.#tables
  }

  /** Keep the table a run starts from (an editor may hold it, edit it, and save it during a later run). */
  keepTable(state: TableState): void {
    const old = this.tables().filter((table) => JSON.stringify(serial(table)) !== JSON.stringify(serial(state)))
    this.#tables = [state, ...old].slice(0, keepTables)
    this.#held.tables = true
  }

  /** The entries of earlier stores, oldest first (cut back first when the file has grown past its bound); `open`: a table a run started from. */
  load(): Array<HistoryEntry & {open?: true}> {
    let text: string
    try {
      text = fs.readFileSync(this.file, 'utf8')
    } catch {
      return []
    }
    // A last line a crash cut short: the next entry starts a line of its own, not its tail.
    this.#torn = text.length > 0 && !text.endsWith('\n')
    const parsed = text
      .split('\n')
      .map(parse)
      .filter((line) => line !== undefined)
    const cut = parsed.length > maxLines || text.length > maxBytes
    if (!cut) return parsed.map(withOpen)
    // The newest lines, and older starts by digest alone; the first version kept whole holds the table as it was then.
    let window = Math.max(0, parsed.length - keepLines)
    for (let i = parsed.length - 1, bytes = 0; i >= window; i--) if ((bytes += parsed[i]!.size) > keepBytes) window = i + 1
    const kept: Array<{entry: HistoryEntry; open?: true}> = []
    let opens = parsed.slice(window).filter((line) => line.open).length
    for (let i = window - 1; i >= 0 && opens < keepOpens; i--) {
      const line = parsed[i]!
      if (!line.open || !('version' in line.entry)) continue
      opens++
      kept.unshift({entry: {version: line.entry.version}, open: true})
    }
    const rows = new Map<string, RowState | null>()
    let meta: TableState['meta'] | undefined
    let whole = false
    for (const [i, line] of parsed.entries()) {
      const delta = 'version' in line.entry ? line.entry.delta : undefined
      for (const [agent, row] of delta?.rows ?? []) rows.set(agent, row)
      if (delta?.meta) meta = delta.meta
      if (i < window) continue
      if (!whole && delta && meta) {
        whole = true
        kept.push({...line, entry: {version: (line.entry as {version: string}).version, delta: {rows: [...rows].filter(([, row]) => row !== null), meta}}})
      } else kept.push(line)
    }
    this.#rewrite(kept.map(encode))
    return kept.map(withOpen)
  }

  /** Append versions and edits (in the order they happened). */
  append(lines: Array<HistoryEntry & {open?: boolean}>, held = false): void {
    if (this.#broken || lines.length === 0) return
    const encoded = lines.map((line) => encode({entry: line, ...(line.open && {open: true as const})}) + '\n').join('')
    // What a store's open found (its table, the cells a person changed between runs): held for the first other entry.
    if (held || lines.every((line) => 'version' in line && line.open)) {
      this.#held.text += encoded
      return
    }
    const text = (this.#torn ? '\n' : '') + this.#held.text + encoded
    const tables = this.#held.tables
    this.#held = {text: '', tables: false}
    if (tables) this.#writeTables()
    this.#torn = false
    try {
      fs.appendFileSync(this.file, text)
    } catch {
      try {
        makeDir(dirname(this.file))
        fs.appendFileSync(this.file, text)
      } catch {
        // A read-only folder: this run goes on with what it knows in memory.
        this.#broken = true
      }
    }
  }

  #writeTables(): void {
    try {
      makeDir(dirname(this.tablesFile))
      this.#rewriteFile(this.tablesFile, JSON.stringify(this.tables().map(serial)))
    } catch {
      this.#broken = true
    }
  }

  #rewrite(lines: string[]): void {
    try {
      this.#rewriteFile(this.file, lines.map((line) => line + '\n').join(''))
    } catch {
      // Left as it was: cut at the next open.
    }
  }

  #rewriteFile(file: string, text: string): void {
    const temp = `${file}.${process.pid}.tmp`
    try {
      fs.writeFileSync(temp, text)
      fs.renameSync(temp, file)
    } catch (error) {
      fs.rmSync(temp, {force: true})
      throw error
    }
  }
}

function serial(table: TableState): {rows: Array<[string, RowState]>; meta: TableState['meta']} {
  return {rows: [...table.rows], meta: table.meta}
}

function encode({entry, open}: {entry: HistoryEntry; open?: true}): string {
  if (!('version' in entry)) return JSON.stringify({e: entry.edit})
  const delta = entry.delta
  return JSON.stringify({v: entry.version, ...(open && {open: 1}), ...(delta && {r: delta.rows}), ...(delta?.meta && {m: delta.meta})})
}

function parse(line: string): {entry: HistoryEntry; open?: true; size: number} | undefined {
  if (line === '') return undefined
  const read = parseLine(line)
  return read && {...read, size: line.length}
}

function parseLine(line: string): {entry: HistoryEntry; open?: true} | undefined {
  try {
    const value = JSON.parse(line) as {v?: unknown; open?: unknown; r?: unknown; m?: unknown; e?: Partial<HumanEdit>}
    if (typeof value.v === 'string') {
      const delta = readDelta(value.r, value.m)
      const entry = delta ? {version: value.v, delta} : {version: value.v}
      return value.open ? {entry, open: true} : {entry}
    }
    const edit = value.e
    if (edit && typeof edit.agent === 'string' && typeof edit.column === 'string' && typeof edit.from === 'string' && typeof edit.to === 'string') {
      return {entry: {edit: {agent: edit.agent, column: edit.column, from: edit.from, to: edit.to}}}
    }
  } catch {
    // Not JSON: skipped.
  }
  return undefined
}

/** The rows and meta lines of a version line; undefined when it has none, or they are not of the right shape (a table not rebuilt, never a wrong one). */
function readDelta(rows: unknown, meta: unknown): TableDelta | undefined {
  if (!Array.isArray(rows)) return undefined
  const delta: TableDelta = {rows: []}
  for (const pair of rows as unknown[]) {
    if (!Array.isArray(pair) || typeof pair[0] !== 'string') return undefined
    const row = pair[1] as Partial<RowState> | null
    if (row !== null && !isRow(row)) return undefined
    delta.rows.push([pair[0], row === null ? null : {...row, extra: {...row.extra}}])
  }
  if (meta !== undefined) {
    if (typeof meta !== 'object' || meta === null || Object.values(meta).some((value) => typeof value !== 'string')) return undefined
    delta.meta = {...meta}
  }
  return delta
}

function isRow(row: Partial<RowState>): row is RowState {
  const text = (value: unknown) => typeof value === 'string'
  return typeof row === 'object' && text(row.status) && text(row.agentId) && text(row.duration) && text(row.notes) && (row.held === undefined || text(row.held)) && typeof row.extra === 'object' && row.extra !== null && Object.values(row.extra).every(text)
}

function withOpen(line: {entry: HistoryEntry; open?: true}): HistoryEntry & {open?: true} {
  return line.open ? {...line.entry, open: true} : line.entry
}
