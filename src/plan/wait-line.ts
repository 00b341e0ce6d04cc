/**
 * A line under the Execution State table saying an account waits for a usage limit to reset:
 *
 *   claude on local: usage limit, resets 2026-11-28T15:00Z
 *   codex on build1: rate limit, waits until 2026-11-28T14:03:30Z
 *
 * `resets` is a reset the CLI named (the run launches nothing on that account before it, plus a margin);
 * `waits until` is mdplan's own backoff for a limit that named none. mdplan owns these lines: it adds and
 * removes them; a person clears a wait by deleting its line. An account is a runner on a host (the
 * credentials it uses there).
 */
export interface WaitLine {
  /** `<runner> on <host>`. */
  account: string
  /** What the limit was (`usage limit`). */
  what: string
  /** When it resets (a reset the CLI named) or when the backoff ends (ms). */
  at: number
  /** The CLI named the reset. */
  reset: boolean
}

const pattern = /^[ \t]*([A-Za-z][\w.-]* on [A-Za-z][\w.-]*): (.*?),? (resets|waits until) (\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?Z)[ \t]*$/

/** The wait a line says, or undefined when it is no wait line. */
export function parseWaitLine(text: string): WaitLine | undefined {
  const match = pattern.exec(text)
  if (!match) return undefined
  const at = Date.parse(match[4]!)
  if (!Number.isFinite(at)) return undefined
  return {account: match[1]!, what: match[2]!, at, reset: match[3] === 'resets'}
}

/** Whether a line after the table is a wait line (mdplan's own). */
export function isWaitLine(text: string): boolean {
  return parseWaitLine(text) !== undefined
}

/** The line of a wait: its instant to the minute when that is exact, else to the second. */
export function formatWaitLine(wait: WaitLine): string {
  const iso = new Date(Math.ceil(wait.at / 1000) * 1000).toISOString().replace('.000Z', 'Z')
  const shown = iso.endsWith(':00Z') ? iso.replace(/:00Z$/, 'Z') : iso
  return `${wait.account}: ${wait.what}, ${wait.reset ? 'resets' : 'waits until'} ${shown}`
}

/** The wait lines among the lines after a table, joined by `\n` as the table's meta keeps them (undefined: none). */
export function readWaitLines(lines: Iterable<string>): string | undefined {
  const found: string[] = []
  let fenced = false
  for (const line of lines) {
    // A code block after the table is not mdplan's.
    if (/^[ \t]*(?:```|~~~)/.test(line)) fenced = !fenced
    else if (!fenced && isWaitLine(line)) found.push(line.trim())
  }
  return found.length > 0 ? found.join('\n') : undefined
}
