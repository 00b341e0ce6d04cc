import type {Diagnostic} from '../plan/types.js'

/**
 * One line in the vfile-message shape: `path:line:col: reason [rule]`.
 * Errors carry no label (as in the design's example); warnings and infos say so.
 */
export function formatDiagnostic(d: Diagnostic): string {
  const point = d.place === undefined ? undefined : 'start' in d.place ? d.place.start : d.place
  const where = point ? `${d.file}:${point.line}:${point.column}` : d.file
  const label = d.severity === 'error' ? '' : `${d.severity}: `
  return `${where}: ${label}${d.reason} [${d.rule}]`
}
