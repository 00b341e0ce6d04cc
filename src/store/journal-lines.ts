import {basename} from 'node:path'
import type {JournalEntry} from './append-journal.js'
import {journalFile} from './journal-file.js'
import type {RowState} from './table-state.js'

/** The journal's text for `rows`: one JSON line each, as `appendJournal` appends and the journal keeper rewrites. */
export function journalLines(planFile: string, rows: Iterable<{agent: string; row: RowState; base?: RowState | undefined}>, now = new Date()): string {
  const plan = basename(journalFile(planFile)).replace(/\.jsonl$/, '')
  const time = now.toISOString()
  let text = ''
  for (const {agent, row, base} of rows) text += JSON.stringify({v: 1, plan, agent, row, base, time} satisfies JournalEntry) + '\n'
  return text
}
