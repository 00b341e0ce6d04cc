// The line cursor of the quick reader (src/plan/quick-blocks.ts): where the current line of a region
// starts and ends, its number, and the questions the reader asks of it.

export type Point = {line: number; column: number; offset: number}

/** A line whose first non-space character is one of these could start or interrupt a block (or be a table's delimiter row, a setext underline, a definition). */
const special = new Set(['#', '>', '-', '=', '|', '~', '`', '<', '[', ':', '\\'])
/** These start a block only as a bullet (followed by a space or the line's end) or a thematic break (`***`, `___`). */
const bullets = new Set(['*', '+', '_'])
const thematicBreak = /^([*_])(?: *\1){2,} *$/
/** An ordered list's marker. */
const ordered = /^\d{1,9}[.)]/

/** The lines of `text` from `start` to `end`, one at a time; the first is numbered `line` (from 1). */
export class QuickLines {
  /** The current line's start. */
  o: number
  /** The current line's end: its `\n`, or `end`. */
  e: number
  /** The current line's number. */
  n: number

  constructor(
    readonly text: string,
    start: number,
    readonly end: number,
    line: number
  ) {
    this.o = start
    this.e = this.lineEnd(start)
    this.n = line
  }

  private lineEnd(from: number): number {
    const at = this.text.indexOf('\n', from)
    return at === -1 || at > this.end ? this.end : at
  }

  /** Go on to the next line. */
  advance(): void {
    this.o = this.e + 1
    this.e = this.o < this.end ? this.lineEnd(this.o) : this.end
    this.n++
  }

  /** Whether there is a current line (the region is not over). */
  more(): boolean {
    return this.o < this.end
  }

  /** The point at `offset` on the current line. */
  at(offset: number): Point {
    return {line: this.n, column: offset - this.o + 1, offset}
  }

  /** Whether the current line is blank (spaces only). */
  blank(): boolean {
    for (let i = this.o; i < this.e; i++) if (this.text.charCodeAt(i) !== 32) return false
    return true
  }

  /** The current line's text. */
  source(): string {
    return this.text.slice(this.o, this.e)
  }

  /** Whether the current line, from `from`, reads as plain text where a paragraph goes on. */
  plain(from: number): boolean {
    const {text, e} = this
    let i = from
    while (i < e && text.charCodeAt(i) === 32) i++
    if (i === e) return false
    const c = text[i]!
    if (bullets.has(c)) return c !== '_' && (i + 1 === e || text[i + 1] === ' ') ? false : !thematicBreak.test(text.slice(i, e))
    return !special.has(c) && !ordered.test(text.slice(i, Math.min(i + 11, e)))
  }
}
