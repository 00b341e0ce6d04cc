import type {Diagnostic} from '../plan/types.js'

/** Diagnostics the way compilers print them, `file:line:col: reason [rule]`, one a line. */
export function formatPlanError(diagnostics: readonly Diagnostic[]): string {
  return diagnostics
    .map((d) => {
      const place = d.place === undefined ? '' : 'start' in d.place ? `:${d.place.start.line}:${d.place.start.column}` : `:${d.place.line}:${d.place.column}`
      return `${d.file}${place}: ${d.reason} [${d.rule}]\n`
    })
    .join('')
}
