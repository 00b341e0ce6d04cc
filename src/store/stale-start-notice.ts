/**
 * What a run says when the table it found at its start is one an earlier run wrote in its middle (an
 * editor's buffer loaded then, saved while no run was live): it starts from the table the last run left.
 */
export function staleStartNotice(file: string, kept: readonly string[]): string {
  const named = kept.length > 12 ? `${kept.slice(0, 12).join(', ')} and ${kept.length - 12} more` : kept.join(', ')
  const rows = kept.length > 0 ? `; it keeps mdplan's rows for ${named} (a stale buffer is not an edit)` : ''
  return `${file}: the Execution State table at this run's start is one an earlier run wrote while it ran (an editor's buffer loaded then and saved since); the run starts from the table the last run left, with only what was typed into that buffer${rows}: to run an agent again, set its Status to pending`
}
