import {basename} from 'node:path'
import {journalFile} from './journal-file.js'
import type {RowState} from './table-state.js'

/** One line of a plan's journal: a row the run knew and could not write into the table. */
export interface JournalEntry {
  v: 1
  /** The plan's file name (the journal sits in `.mdplan/journal/` beside it). */
  plan: string
  agent: string
  /** The row as the run knew it. */
  row: RowState
  /** The row as the file said it then (a person's later edit of the same cell is told apart from it). */
  base?: RowState
  time: string
}

/** The journal's text for `rows`: one JSON line each, as `appendJournal` appends and the journal keeper rewrites. */
export function journalLines(planFile: string, rows: Iterable<{agent: string; row: RowState; base?: RowState | undefined}>, now = new Date()): string {
  const plan = basename(journalFile(planFile)).replace(/\.jsonl$/, '')
  const time = now.toISOString()
  let text = ''
  for (const {agent, row, base} of rows) text += JSON.stringify({v: 1, plan, agent, row, base, time} satisfies JournalEntry) + '\n'
  return text
}
