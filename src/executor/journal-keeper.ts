import {appendJournal} from '../store/append-journal.js'
import type {JournalEntry} from '../store/journal-lines.js'
import {journalLines} from '../store/journal-lines.js'
import {atomicWrite} from '../store/atomic-write.js'
import {journalFile} from '../store/journal-file.js'
import {removeJournal} from '../store/read-journal.js'
import type {RowState, TableState} from '../store/table-state.js'
import {storeRow} from './exec-row.js'
import type {Emitted} from './exec-effect.js'
import type {ExecState} from './exec-state.js'
import {sameRow, unrecordedRows} from './unrecorded-rows.js'

export interface JournalKeeper {
  /** After every step: journal what a failing write leaves unrecorded; drop what a write has recorded since. */
  afterStep(state: ExecState): void
  /** The journal holds this row already (the run's end appends only what it lacks). */
  has(agent: string, row: RowState): boolean
}

type Kept = {row: RowState; base: RowState | undefined}

/**
 * Keeps the plan's journal equal to what the run knows and the file does not say. A row goes in (appended,
 * synced) in the step that learns it while the table cannot be written, so a SIGKILL or a power cut during
 * the minute a damaged table gets for its repair loses nothing; it leaves once a write has put it in the
 * table. `seed`: the agents of a journal this run applied at its start (they leave the same way).
 * Never after a lost lock: the file may be another run's by then (the run's end journals what it knew).
 */
export function journalKeeper(input: {file: string; emit: (event: Emitted) => void; seed?: readonly JournalEntry[]; table?: TableState}): JournalKeeper {
  const kept = new Map<string, Kept>()
  for (const entry of input.seed ?? []) kept.set(entry.agent, {row: input.table?.rows.get(entry.agent) ?? entry.row, base: entry.base})
  let broken = false
  return {
    has(agent, row) {
      const known = kept.get(agent)
      return known !== undefined && sameRow(known.row, row)
    },
    afterStep(state) {
      if (state.lockLost !== undefined) return
      if (state.write.failed !== undefined) {
        const fresh = unrecordedRows(state).filter(({agent, row}) => {
          const known = kept.get(agent)
          return !known || !sameRow(known.row, row)
        })
        if (fresh.length === 0) return
        try {
          const journal = appendJournal(input.file, fresh)
          for (const {agent, row, base} of fresh) kept.set(agent, {row, base})
          input.emit({type: 'warning', message: `not recorded in the table yet: ${fresh.map(({agent, row}) => `${agent} ${row.status}`).join(', ')}; kept in ${journal} until it is`})
        } catch (error) {
          if (broken) return
          broken = true
          input.emit({type: 'warning', message: `the journal could not be written (${error instanceof Error ? error.message : String(error)}); the run keeps what it knows until the table can be written`})
        }
        return
      }
      if (kept.size === 0) return
      let dropped = false
      for (const agent of [...kept.keys()]) {
        const known = state.table.rows.get(agent)
        const onDisk = state.write.onDisk.rows.get(agent)
        if (!known || (onDisk && sameRow(storeRow(known), onDisk))) {
          kept.delete(agent)
          dropped = true
        }
      }
      if (!dropped) return
      try {
        if (kept.size === 0) removeJournal(input.file)
        // The rows still unrecorded, alone: a later run must not apply a row the table has since moved on from.
        else atomicWrite(journalFile(input.file), Buffer.from(journalLines(input.file, [...kept].map(([agent, {row, base}]) => ({agent, row, base})))))
      } catch {
        // Left as it was: applying a row the table already says is a no-op.
      }
    }
  }
}
