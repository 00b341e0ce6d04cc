import {isDeepStrictEqual} from 'node:util'

export type MarkResult = {text: string; outcome: 'updated'} | {text?: undefined; outcome: 'already-completed' | 'not-found'}

/**
 * The queue's text with issue `id` marked `"status": "completed"`: only that
 * line changes, and within it only the status value when the line can be
 * edited in place (its own spacing and key order kept); every other line,
 * its line ending and the file's last newline stay byte for byte. Pure.
 */
export function markIssueCompleted(text: string, id: string): MarkResult {
  const lines = text.split('\n')
  for (const [index, source] of lines.entries()) {
    const line = source.replace(/^\ufeff/, '').replace(/\r$/, '')
    if (line.trim() === '') continue
    let record: unknown
    try {
      record = JSON.parse(line)
    } catch {
      continue
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) continue
    const issue = record as Record<string, unknown>
    if (String(issue.id) !== id) continue
    if (issue.status === 'completed') return {outcome: 'already-completed'}
    const wanted = {...issue, status: 'completed'}
    const edited = inPlace(line, wanted) ?? JSON.stringify(wanted)
    lines[index] = source.slice(0, source.length - source.replace(/^\ufeff/, '').length) + edited + (source.endsWith('\r') ? '\r' : '')
    return {text: lines.join('\n'), outcome: 'updated'}
  }
  return {outcome: 'not-found'}
}

/** The line with one `"status": "…"` value replaced, if that yields exactly `wanted` (a nested `status` key is left alone). */
function inPlace(line: string, wanted: Record<string, unknown>): string | undefined {
  for (const match of line.matchAll(/("status"\s*:\s*)"(?:[^"\\]|\\.)*"/g)) {
    const candidate = line.slice(0, match.index) + match[1] + '"completed"' + line.slice(match.index + match[0].length)
    try {
      if (isDeepStrictEqual(JSON.parse(candidate), wanted)) return candidate
    } catch {
      // Not this one.
    }
  }
  return undefined
}
