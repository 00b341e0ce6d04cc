/**
 * One line of at most `max` characters that keeps what a person must act on:
 * the environment variable to set, the command to run. A plain cut at 160
 * characters lost gemini's `GEMINI_API_KEY` (it starts near character 180).
 * Keeps the head of the message for context, then `…`, then the clause that
 * holds the first to the last actionable word. The whole text belongs in the log.
 */
export function actionableLine(text: string, max = 160): string {
  const line = text.replace(/\s+/g, ' ').trim()
  if (line.length <= max) return line
  const spans = actionableSpans(line)
  if (spans.length === 0) return cut(line, max)
  const first = spans[0]!.start
  const last = Math.max(...spans.map((span) => span.end))
  const start = clauseStart(line, first)
  const window = line.slice(start, last)
  if (window.length + 2 > max) {
    // The actionable words alone, as many as fit.
    const words = [...new Set(spans.map((span) => line.slice(span.start, span.end)))].join(', ')
    return cut(`${cut(line, Math.max(20, max - words.length - 2))} ${words}`, max)
  }
  const tail = line.slice(last)
  const headRoom = max - window.length - 2
  const head = start <= headRoom ? line.slice(0, start) : `${line.slice(0, headRoom).trimEnd()}… `
  const body = `${head}${window}`
  if (body.length + tail.length <= max) return body + tail
  return body.length < max ? `${body}${tail.slice(0, max - body.length - 1)}…` : body
}

interface Span {
  start: number
  end: number
}

const actionable = [
  /`[^`]+`/g,
  // An environment variable: capitals with an underscore (GEMINI_API_KEY, IS_SANDBOX=1).
  /\b[A-Z][A-Z0-9]*_[A-Z0-9_]+(?:=\S+)?/g,
  // "run /login", "run claude auth login"
  /\brun\s+\/?[\w:/.-]+(?:\s+[a-z][\w-]*){0,2}/gi
]

function actionableSpans(line: string): Span[] {
  const spans: Span[] = []
  for (const pattern of actionable) {
    for (const match of line.matchAll(pattern)) spans.push({start: match.index, end: match.index + match[0].length})
  }
  return spans.sort((a, b) => a.start - b.start)
}

/** Where the clause holding `index` starts: after the nearest `: `, `. ` or `; ` before it, if near. */
function clauseStart(line: string, index: number): number {
  const before = line.slice(Math.max(0, index - 80), index)
  const boundary = Math.max(before.lastIndexOf(': '), before.lastIndexOf('. '), before.lastIndexOf('; '))
  if (boundary === -1) {
    const space = before.indexOf(' ')
    return index - before.length + (space === -1 ? before.length : space + 1)
  }
  return index - before.length + boundary + 2
}

function cut(line: string, max: number): string {
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line
}
