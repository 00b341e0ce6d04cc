/** `—` (or a lone dash) in a table cell means "none". */
const noneMarks: ReadonlySet<string> = new Set(['—', '–', '-'])

/** A table cell's (trimmed) text as a value: '' for a dash meaning none, else the text as it is. */
export function noneAsEmpty(value: string): string {
  return noneMarks.has(value) ? '' : value
}
