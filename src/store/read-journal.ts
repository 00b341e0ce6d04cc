import fs from 'node:fs'
import {basename} from 'node:path'
import type {JournalEntry} from './journal-lines.js'
import {journalFile} from './journal-file.js'

/**
 * The plan's journal entries, the last one per agent (later knowledge wins).
 * A torn last line (a run killed mid-append) is skipped: every line before
 * it was synced whole.
 */
export function readJournal(planFile: string): JournalEntry[] {
  const file = journalFile(planFile)
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch {
    return []
  }
  const plan = basename(file).replace(/\.jsonl$/, '')
  const last = new Map<string, JournalEntry>()
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    try {
      const entry = JSON.parse(line) as JournalEntry
      if (entry.v !== 1 || entry.plan !== plan || typeof entry.agent !== 'string' || typeof entry.row?.status !== 'string') continue
      last.delete(entry.agent)
      last.set(entry.agent, entry)
    } catch {
      // Torn: never synced whole, never reported applied.
    }
  }
  return [...last.values()]
}

/** The entries are in the table now: remove the journal (only the run holding the plan's lock writes it). */
export function removeJournal(planFile: string): void {
  fs.rmSync(journalFile(planFile), {force: true})
}
