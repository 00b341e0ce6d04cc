import type {TableDamage} from './conflicted-section.js'

/**
 * A hand edit left the `## Execution State` table unreadable (its `|---|` line
 * deleted, its header broken, the section gone). The store writes nothing: a
 * second table would split the run's record in two. Once the person repairs
 * the table, the next write merges as usual. The executor stops launching,
 * keeps running agents going, and tries again.
 */
export class DamagedTableError extends Error {
  readonly code = 'EDAMAGEDTABLE'
  readonly rule = 'damaged-state-table'
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: number,
    readonly reason: string
  ) {
    super(`${file}:${line}:${column}: the Execution State table no longer reads as a table: ${reason}; mdplan records progress again once it does [damaged-state-table]`)
    this.name = 'DamagedTableError'
  }

  /** The error for a damage found in `text` (the file's text without BOM). */
  static at(file: string, text: string, damage: TableDamage): DamagedTableError {
    // The end of a file that ends its last line: a place on that line, not on a line the file does not have.
    const offset = damage.offset >= text.length && text.endsWith('\n') ? text.length - 1 : damage.offset
    const before = text.slice(0, offset)
    const line = before.split('\n').length
    return new DamagedTableError(file, line, offset - (before.lastIndexOf('\n') + 1) + 1, damage.reason)
  }
}
