import {parseDocument} from 'yaml'
import type {Locator} from './locate.js'
import {normalizeKey} from './normalize-key.js'
import {settingChecks, type SettingKey} from './setting-checks.js'
import type {Diagnostic, Point, Settings} from './types.js'

/**
 * Read the YAML front matter into settings. `start`/`end` are the offsets of the
 * whole block, fences included. Keys are matched after normalization
 * (`max-attempts` → `max_attempts`); every key is kept in `raw`.
 */
export function readFrontMatter(text: string, start: number, end: number, at: Locator, file: string, messages: Diagnostic[]): Settings {
  const valueStart = text.indexOf('\n', start) + 1
  let valueEnd = Math.max(valueStart, text.lastIndexOf('\n', end - 1))
  if (valueEnd > valueStart && text[valueEnd - 1] === '\r') valueEnd--
  const source = text.slice(valueStart, valueEnd)
  const settings: Settings = {raw: {}, position: at.span(start, end)}
  const block: Block = {source, start, valueStart, at, file, messages}

  const mapping = readMapping(block)
  if (!mapping) return settings
  settings.raw = mapping
  for (const [key, raw] of Object.entries(settings.raw)) {
    // Other tools share front matter: a key with no check is kept, ignored.
    settingChecks.get(normalizeKey(key))?.(raw, settingKey(block, settings, key))
  }
  return settings
}

/** The front matter: its YAML (`source`, from `valueStart`), the offset of its opening fence, and where messages go. */
interface Block {
  source: string
  start: number
  valueStart: number
  at: Locator
  file: string
  messages: Diagnostic[]
}

/** The front matter's YAML as a mapping; undefined, with a message when it is wrong, when it is not one (or empty). */
function readMapping({source, start, valueStart, at, file, messages}: Block): Record<string, unknown> | undefined {
  const doc = parseDocument(source, {prettyErrors: false})
  if (doc.errors.length > 0) {
    for (const error of doc.errors) {
      messages.push({
        severity: 'error',
        rule: 'invalid-front-matter',
        reason: `invalid YAML front matter: ${error.message.split('\n')[0]}`,
        file,
        place: at.point(valueStart + Math.min(error.pos[0], source.length))
      })
    }
    return undefined
  }
  let value: unknown
  try {
    value = doc.toJS()
  } catch (error) {
    // YAML that parses but cannot become a value (`*name` with no `&name` anchor, as `- **prompt**:` reads).
    messages.push({severity: 'error', rule: 'invalid-front-matter', reason: `invalid YAML front matter: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, file, place: at.point(valueStart)})
    return undefined
  }
  if (value === null || value === undefined) return undefined
  if (typeof value !== 'object' || Array.isArray(value)) {
    messages.push({severity: 'error', rule: 'invalid-front-matter', reason: 'front matter must be a YAML mapping of `key: value` settings', file, place: at.point(start)})
    return undefined
  }
  return value as Record<string, unknown>
}

/** `key` (as written) for its check: where it is, and how to report a wrong value. */
function settingKey({source, start, valueStart, at, file, messages}: Block, settings: Settings, key: string): SettingKey {
  const found = (): Point | undefined => {
    const keyAt = findKey(source, key)
    return keyAt === -1 ? undefined : at.point(valueStart + keyAt)
  }
  const place = (): Point => found() ?? at.point(start)
  const problem = (expected: string): void => {
    messages.push({severity: 'error', rule: 'invalid-setting', reason: `front matter \`${key}\` must be ${expected}`, file, place: place()})
  }
  const problemAt = (reason: string, point: Point): void => {
    messages.push({severity: 'error', rule: 'invalid-setting', reason, file, place: point})
  }
  const nested = (name: string): Point => {
    const keyAt = findKey(source, key)
    const inner = keyAt === -1 ? -1 : findNested(source, keyAt, name)
    return inner === -1 ? place() : at.point(valueStart + inner)
  }
  return {settings, problem, found, place, nested, problemAt}
}

/**
 * Where `name:` is written under the key at `keyAt`: on the key's own line (`accounts: {claude: 8}`) or on the
 * lines indented under it. -1 when it is not found.
 */
function findNested(source: string, keyAt: number, name: string): number {
  const pattern = new RegExp(`(?<=^|[\\s{,])(['"]?)${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\1\\s*:`, 'i')
  for (let from = keyAt, first = true; from < source.length; first = false) {
    const end = source.indexOf('\n', from)
    const line = source.slice(from, end === -1 ? undefined : end)
    if (!first && line.trim() !== '' && !/^\s/.test(line)) break
    // On the key's own line, only after the key.
    const skip = first ? line.indexOf(':') + 1 : 0
    const match = pattern.exec(line.slice(skip))
    if (match) return from + skip + match.index
    if (end === -1) break
    from = end + 1
  }
  return -1
}

function findKey(source: string, key: string): number {
  const match = new RegExp(`^${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*:`, 'm').exec(source)
  return match ? match.index : -1
}
