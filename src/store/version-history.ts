import fs from 'node:fs'
import {basename, dirname, join} from 'node:path'
import {makeDir} from '../util/make-dir.js'
import type {HumanEdit} from './merge-state.js'
import {planTarget} from './plan-target.js'

/** One line of a plan's history: a version of its state section on disk (by digest), or a person's edit mdplan merged. */
export type HistoryEntry = {version: string} | {edit: HumanEdit}

/** Past this many lines the file is cut back at the next open (a 1000-agent run writes about 560 versions). */
const maxLines = 8192
/** What a cut keeps: the newest lines, and every version read at a run's start (a `git checkout` brings those back). */
const keepLines = 4096
const keepOpens = 256

/**
 * What mdplan wrote into a plan, kept across runs: `.mdplan/versions/<plan
 * file>.log` beside the plan (beside its target when it is a symlink, like the
 * journal and the lock; the file's own name is its key, so two plans in one
 * folder never share one). One JSON line per version of the state section
 * (its digest; `open` when read at a store's start) and per cell a person
 * changed, oldest first. A store that opens the plan again (the next run, a
 * resumed one) knows every table an earlier run wrote or started from, so an
 * editor buffer or a `git checkout` that brings one back is taken for what it
 * is. Best effort: a history that cannot be read or written only makes the
 * next run know less, never stops a run.
 */
export class VersionHistory {
  readonly file: string
  #broken = false

  constructor(planFile: string) {
    const target = planTarget(planFile)
    this.file = join(dirname(target), '.mdplan', 'versions', `${basename(target)}.log`)
  }

  /** The entries of earlier stores, oldest first (cut back first when the file has grown past its bound). */
  load(): HistoryEntry[] {
    let text: string
    try {
      text = fs.readFileSync(this.file, 'utf8')
    } catch {
      return []
    }
    const lines = text.split('\n').filter((line) => line !== '')
    const entries: HistoryEntry[] = []
    const kept: string[] = []
    const cut = lines.length > maxLines
    let opens = 0
    for (let i = lines.length - 1; i >= 0; i--) {
      const entry = parse(lines[i]!)
      // A line cut short by a crash mid-append is skipped, not an error.
      if (!entry) continue
      const open = 'open' in entry
      if (cut && kept.length >= keepLines && !(open && opens < keepOpens)) continue
      if (open) opens++
      entries.push(entry.entry)
      kept.push(lines[i]!)
    }
    entries.reverse()
    if (cut) this.#rewrite(kept.reverse())
    return entries
  }

  /** Append versions and edits (in the order they happened). */
  append(lines: Array<HistoryEntry & {open?: boolean}>): void {
    if (this.#broken || lines.length === 0) return
    const text = lines.map((line) => JSON.stringify('version' in line ? (line.open ? {v: line.version, open: 1} : {v: line.version}) : {e: line.edit}) + '\n').join('')
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

  #rewrite(lines: string[]): void {
    const temp = `${this.file}.${process.pid}.tmp`
    try {
      fs.writeFileSync(temp, lines.map((line) => line + '\n').join(''))
      fs.renameSync(temp, this.file)
    } catch {
      fs.rmSync(temp, {force: true})
    }
  }
}

function parse(line: string): {entry: HistoryEntry; open?: true} | undefined {
  try {
    const value = JSON.parse(line) as {v?: unknown; open?: unknown; e?: Partial<HumanEdit>}
    if (typeof value.v === 'string') return value.open ? {entry: {version: value.v}, open: true} : {entry: {version: value.v}}
    const edit = value.e
    if (edit && typeof edit.agent === 'string' && typeof edit.column === 'string' && typeof edit.from === 'string' && typeof edit.to === 'string') {
      return {entry: {edit: {agent: edit.agent, column: edit.column, from: edit.from, to: edit.to}}}
    }
  } catch {
    // Not JSON: skipped.
  }
  return undefined
}
