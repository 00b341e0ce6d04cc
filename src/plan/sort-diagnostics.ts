import type {Diagnostic} from './types.js'

/** File, then position (diagnostics without one first), then rule: a stable order for output and goldens. */
export function sortDiagnostics(list: Diagnostic[]): Diagnostic[] {
  const offset = (d: Diagnostic): number => (d.place === undefined ? -1 : 'start' in d.place ? d.place.start.offset : d.place.offset)
  return list.sort((a, b) => (a.file === b.file ? 0 : a.file < b.file ? -1 : 1) || offset(a) - offset(b) || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0))
}
