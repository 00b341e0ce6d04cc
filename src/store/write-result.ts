import type {Conflict, HumanEdit} from './merge-state.js'
import type {TableState} from './table-state.js'

export interface WriteResult {
  /** What the file says after the write (hand edits merged in): the executor adopts it. */
  state: TableState
  /** Cells a person changed since the version their save started from (status edits are instructions). Meta lines have agent ''. */
  humanEdits: HumanEdit[]
  conflicts: Conflict[]
  /** Bytes written; 0 when nothing changed and nothing was written. */
  bytes: number
  ms: number
  /** The file held a save of someone else's, which this write merged (the run looks at what it changed). */
  merged?: boolean
  /** What the person should be told about their saves (a stale table kept, an undo taken). */
  notices?: string[]
}
