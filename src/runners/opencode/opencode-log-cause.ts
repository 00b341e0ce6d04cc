/**
 * The real cause of an opencode failure from its `--print-logs` stderr. Its
 * `error` event often says only `UnknownError: Unexpected server error` with a
 * `ref`; the log line `level=ERROR … ref=<ref> error="ProviderModelNotFoundError: …"`
 * names the cause. Without a ref, the last ERROR line that has an `error=`.
 */
export function opencodeLogCause(stderr: string, ref?: string): string | undefined {
  const lines = stderr.split(/\r?\n/).filter((line) => /\blevel=ERROR\b/.test(line))
  const withRef = ref === undefined ? undefined : lines.find((line) => line.includes(`ref=${ref}`))
  for (const line of withRef ? [withRef] : lines.reverse()) {
    const error = quotedField(line, 'error')
    if (error) return error
  }
  return undefined
}

/** `key="value with \" escapes"` (logfmt) from one log line. */
function quotedField(line: string, key: string): string | undefined {
  const match = new RegExp(`(?:^|\\s)${key}="((?:[^"\\\\]|\\\\.)*)"`).exec(line)
  if (!match) return undefined
  try {
    return (JSON.parse(`"${match[1]}"`) as string).split('\n')[0]!.trim()
  } catch {
    return match[1]!.trim()
  }
}
