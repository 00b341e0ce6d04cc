import {parseWaitLine} from '../plan/wait-line.js'

/**
 * The wait lines after a three-way merge, account by account: a line a person deleted, changed or added
 * stands, unless mdplan changed that account's wait too since the base (a newer limit is a newer fact: it
 * stands). `mine` undefined: mdplan did not say (the file's lines stand). Returns the merged text ('' when
 * none) and whether the person edited them.
 */
export function mergeWaitLines(base: string | undefined, mine: string | undefined, theirs: string | undefined): {text: string | undefined; edited: boolean} {
  const [b, m, t] = [byAccount(base), mine === undefined ? undefined : byAccount(mine), byAccount(theirs)]
  const edited = !same(b, t)
  if (!edited) return {text: mine ?? theirs, edited}
  if (m === undefined) return {text: theirs ?? '', edited}
  const accounts = [...new Set([...t.keys(), ...m.keys(), ...b.keys()])]
  const lines: string[] = []
  for (const account of accounts) {
    const mdplanChanged = m.get(account) !== b.get(account)
    const line = mdplanChanged ? m.get(account) : t.get(account)
    if (line !== undefined) lines.push(line)
  }
  return {text: lines.join('\n'), edited}
}

function byAccount(text: string | undefined): Map<string, string> {
  const lines = new Map<string, string>()
  for (const line of (text ?? '').split('\n')) {
    const wait = parseWaitLine(line)
    if (wait && !lines.has(wait.account)) lines.set(wait.account, line.trim())
  }
  return lines
}

function same(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  return a.size === b.size && [...a].every(([account, line]) => b.get(account) === line)
}
