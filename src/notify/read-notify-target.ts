import {isMap, isScalar, isSeq, type Node} from 'yaml'
import {normalizeKey} from '../plan/normalize-key.js'
import {isNotifyKind, notifyKinds, type NotifyKind} from './notify-event.js'
import {targetKey, type NotifyTarget, type TargetPlace, type UrlSource} from './notify-target.js'

/** Say what is wrong with the front matter, at a YAML node (its value), as an error unless told otherwise. */
export type NotifyReport = (reason: string, at: Node | null | undefined, severity?: 'error' | 'warning') => void

interface Entry {
  key: Node
  value: Node | null
  raw: unknown
}

const places = ['webhook', 'webhook_env', 'slack', 'slack_env', 'command', 'desktop'] as const
const known = [...places, 'headers_env', 'events']
const envName = /^[A-Za-z_][A-Za-z0-9_]*$/
// RFC 9110's token: what a header's name may be.
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/**
 * One item of `notify:` (a mapping such as `{webhook_env: MDPLAN_HOOK, events: [question]}`), checked: every
 * problem is reported at the node it is about. Undefined when it is wrong, or turned off (`desktop: false`).
 */
export function readNotifyTarget(node: Node | null, report: NotifyReport): NotifyTarget | undefined {
  if (!isMap(node)) {
    report('a notify target is a mapping such as `{webhook_env: MDPLAN_HOOK}`, `{command: [notify-me]}` or `{desktop: true}`', node)
    return undefined
  }
  const entries = new Map<string, Entry>()
  for (const pair of node.items) {
    const key = pair.key as Node
    const name = normalizeKey(String(isScalar(key) ? key.value : key))
    const value = (pair.value ?? null) as Node | null
    if (!known.includes(name)) {
      const hint = name === 'headers' ? ': headers come from environment variables only (`headers_env: {Authorization: MY_TOKEN}`)' : ` (known: ${known.join(', ')})`
      report(`unknown key \`${String(isScalar(key) ? key.value : name)}\` in a notify target${hint}`, key)
    } else entries.set(name, {key, value, raw: value === null ? null : value.toJSON()})
  }
  // In the order written: the second is the one to point at.
  const named = [...entries.keys()].filter((key): key is (typeof places)[number] => (places as readonly string[]).includes(key))
  if (named.length === 0) return report(`a notify target needs one of ${places.map((p) => `\`${p}\``).join(', ')}`, node), undefined
  if (named.length > 1) return report(`a notify target names one place; \`${named[0]}\` and \`${named[1]}\` are two: write each as its own item of the list`, entries.get(named[1]!)!.key), undefined
  const events = readEvents(entries.get('events'), report)
  const target = readPlace(named[0]!, entries, report)
  if (!target || events === null) return undefined
  return {...target, key: targetKey(target), ...(events ? {events} : {})}
}

function readPlace(place: (typeof places)[number], entries: Map<string, Entry>, report: NotifyReport): TargetPlace | undefined {
  const entry = entries.get(place)!
  const headers = entries.get('headers_env')
  if (headers && (place === 'command' || place === 'desktop')) return report('`headers_env` is for a webhook or Slack target', headers.key), undefined
  switch (place) {
    case 'webhook':
    case 'slack':
    case 'webhook_env':
    case 'slack_env': {
      const url = readUrl(place, entry, report)
      const headersEnv = headers ? readHeaders(headers, report) : {}
      if (!url || !headersEnv) return undefined
      return {type: place.startsWith('slack') ? 'slack' : 'webhook', url, headersEnv}
    }
    case 'command':
      return readCommand(entry, report)
    case 'desktop':
      if (typeof entry.raw !== 'boolean') return report('`desktop` must be `true` or `false`', entry.value ?? entry.key), undefined
      return entry.raw ? {type: 'desktop'} : undefined
  }
}

function readUrl(place: string, {key, value, raw}: Entry, report: NotifyReport): UrlSource | undefined {
  if (place.endsWith('_env')) {
    if (typeof raw === 'string' && envName.test(raw)) return {env: raw}
    return report(`\`${place}\` must name an environment variable that holds the URL, such as \`MDPLAN_HOOK\``, value ?? key), undefined
  }
  let url: URL | undefined
  try {
    url = typeof raw === 'string' ? new URL(raw) : undefined
  } catch {}
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) return report(`\`${place}\` must be an http or https URL (or name an environment variable with \`${place}_env\`)`, value ?? key), undefined
  if (url.username !== '' || url.password !== '') {
    return report(`\`${place}\`: no credentials in the plan; take the URL from the environment (\`${place}_env\`) or a header from it (\`headers_env\`)`, value), undefined
  }
  if (place === 'slack') report('a Slack webhook URL is a secret: keep it in an environment variable and name it with `slack_env`', value, 'warning')
  return {url: raw as string}
}

function readHeaders({key, value}: Entry, report: NotifyReport): Record<string, string> | undefined {
  if (!isMap(value)) return report('`headers_env` must map header names to environment variable names, such as `{Authorization: MY_HOOK_TOKEN}`', value ?? key), undefined
  const headers: Record<string, string> = {}
  let ok = true
  for (const pair of value.items) {
    const name = String(isScalar(pair.key) ? pair.key.value : pair.key)
    const variable = isScalar(pair.value) ? pair.value.value : undefined
    const problem = !headerName.test(name)
      ? `\`${name}\` is not a header name`
      : typeof variable !== 'string' || !envName.test(variable)
        ? `header \`${name}\` must name an environment variable that holds its value (never the value itself)`
        : undefined
    if (problem === undefined) headers[name] = variable as string
    else {
      report(problem, (problem.startsWith('header') ? (pair.value ?? pair.key) : pair.key) as Node)
      ok = false
    }
  }
  return ok ? headers : undefined
}

function readCommand({key, value, raw}: Entry, report: NotifyReport): {type: 'command'; argv: string[]} | undefined {
  if (typeof raw === 'string') return report('`command` must be a list of arguments, run without a shell, such as `[notify-me, --x]`', value), undefined
  if (!isSeq(value) || value.items.length === 0) return report('`command` must be a non-empty list of arguments, such as `[notify-me, --x]`', value ?? key), undefined
  const argv: string[] = []
  for (const item of value.items as Node[]) {
    const word = isScalar(item) ? item.value : undefined
    if ((typeof word !== 'string' && typeof word !== 'number') || String(word) === '') return report('each argument of `command` must be a non-empty string', item), undefined
    argv.push(String(word))
  }
  return {type: 'command', argv}
}

/** The `events:` filter: undefined (none: every kind), the kinds, or null when it is wrong. */
function readEvents(entry: Entry | undefined, report: NotifyReport): NotifyKind[] | undefined | null {
  if (!entry) return undefined
  const items: Node[] = isSeq(entry.value) ? (entry.value.items as Node[]) : entry.value ? [entry.value] : []
  if (items.length === 0) return report(`\`events\` must list kinds of event: ${notifyKinds.join(', ')}`, entry.value ?? entry.key), null
  const kinds: NotifyKind[] = []
  for (const item of items) {
    const kind = isScalar(item) ? item.value : undefined
    if (!isNotifyKind(kind)) return report(`unknown event ${JSON.stringify(kind ?? item.toJSON())} in \`events\` (known: ${notifyKinds.join(', ')})`, item), null
    kinds.push(kind)
  }
  return kinds
}
