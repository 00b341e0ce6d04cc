import {normalizeKey} from './normalize-key.js'

/** What `accounts:` must look like, for messages. */
export const accountsForm = 'a mapping of runner names to how many of their agents may run at once on one login, such as `{claude: 8, codex: {concurrency: 4}}`'

/** One wrong entry of `accounts:` (no `name`: the whole value is wrong), and what is wrong with it. */
export interface AccountCapProblem {
  name?: string
  problem: string
}

/**
 * `accounts:` as the front matter or a host writes it: each runner name to the most of its agents that may run
 * at once on one account (a runner on a host), as a number (`claude: 8`) or `{concurrency: 8}`. Returns the
 * caps that are right and a problem for each entry that is not (docs/limits.md, "Accounts").
 */
export function readAccountCaps(raw: unknown): {caps: Record<string, number>; problems: AccountCapProblem[]} {
  const caps: Record<string, number> = {}
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return {caps, problems: [{problem: `${accountsForm}, not ${shown(raw)}`}]}
  const problems: AccountCapProblem[] = []
  for (const [name, value] of Object.entries(raw)) {
    const cap = capOf(value)
    if (typeof cap === 'number') caps[name.trim().toLowerCase()] = cap
    else problems.push({name, problem: `\`${name}\`: ${cap.problem}`})
  }
  return {caps, problems}
}

function capOf(value: unknown): number | {problem: string} {
  const whole = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 1
  if (whole(value)) return value
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.entries(value).map(([key, v]) => [normalizeKey(key), v] as const)
    const other = entries.find(([key]) => key !== 'concurrency')
    if (other) return {problem: `takes only \`concurrency\`, not \`${other[0]}\``}
    const concurrency = entries[0]?.[1]
    if (whole(concurrency)) return concurrency
    return {problem: `\`concurrency\` must be a whole number of at least 1, not ${shown(concurrency)}`}
  }
  return {problem: `must be a whole number of at least 1 (or \`{concurrency: N}\`), not ${shown(value)}`}
}

function shown(value: unknown): string {
  return value === undefined || value === null ? 'empty' : `\`${typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : JSON.stringify(value)}\``
}
