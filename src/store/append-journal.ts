import fs from 'node:fs'
import {dirname} from 'node:path'
import type {RowState} from './table-state.js'
import {journalFile} from './journal-file.js'
import {makeDir} from '../util/make-dir.js'
import {journalLines} from './journal-lines.js'

/**
 * Keep rows the table could not take (a damaged table, a full disk, a lost
 * lock) in the plan's journal: appended, one JSON line per row, and synced
 * to the disk before this returns. Returns the journal's path.
 */
export function appendJournal(planFile: string, rows: ReadonlyArray<{agent: string; row: RowState; base?: RowState}>, now = new Date()): string {
  const file = journalFile(planFile)
  if (rows.length === 0) return file
  makeDir(dirname(file))
  const text = journalLines(planFile, rows, now)
  const fd = fs.openSync(file, 'a')
  try {
    fs.writeSync(fd, text)
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
  return file
}
