import {parseDocument} from 'yaml'
import type {Locator} from './locate.js'
import {normalizeKey} from './normalize-key.js'
import {parseDuration} from '../util/parse-duration.js'
import type {Diagnostic, Settings} from './types.js'

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
    return settings
  }
  let value: unknown
  try {
    value = doc.toJS()
  } catch (error) {
    // YAML that parses but cannot become a value (`*name` with no `&name` anchor, as `- **prompt**:` reads).
    messages.push({severity: 'error', rule: 'invalid-front-matter', reason: `invalid YAML front matter: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, file, place: at.point(valueStart)})
    return settings
  }
  if (value === null || value === undefined) return settings
  if (typeof value !== 'object' || Array.isArray(value)) {
    messages.push({severity: 'error', rule: 'invalid-front-matter', reason: 'front matter must be a YAML mapping of `key: value` settings', file, place: at.point(start)})
    return settings
  }
  settings.raw = value as Record<string, unknown>

  const problem = (key: string, expected: string): void => {
    const keyAt = findKey(source, key)
    messages.push({
      severity: 'error',
      rule: 'invalid-setting',
      reason: `front matter \`${key}\` must be ${expected}`,
      file,
      place: at.point(keyAt === -1 ? start : valueStart + keyAt)
    })
  }

  for (const [key, raw] of Object.entries(settings.raw)) {
    switch (normalizeKey(key)) {
      case 'runner':
      case 'build':
      case 'model':
      case 'permission_mode': {
        if (typeof raw !== 'string' || raw.trim() === '') {
          problem(key, 'a non-empty string')
          break
        }
        const name = normalizeKey(key) === 'permission_mode' ? 'permissionMode' : (normalizeKey(key) as 'runner' | 'build' | 'model')
        settings[name] = raw
        if (name === 'runner') {
          const keyAt = findKey(source, key)
          if (keyAt !== -1) settings.runnerPosition = at.point(valueStart + keyAt)
        }
        break
      }
      case 'concurrency':
      case 'max_attempts':
      case 'max_turns': {
        if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1) {
          problem(key, 'a whole number of at least 1')
          break
        }
        const name = {concurrency: 'concurrency', max_attempts: 'maxAttempts', max_turns: 'maxTurns'}[normalizeKey(key)] as 'concurrency' | 'maxAttempts' | 'maxTurns'
        settings[name] = raw
        break
      }
      case 'max_budget_usd':
        if (typeof raw !== 'number' || !(raw > 0)) problem(key, 'a positive number')
        else settings.maxBudgetUsd = raw
        break
      case 'agent_timeout':
      case 'max_pause': {
        const ms = typeof raw === 'number' || typeof raw === 'string' ? parseDuration(String(raw)) : undefined
        if (ms === undefined || ms <= 0) problem(key, 'a duration such as `30m`, `45s` or `1h30m`')
        else settings[normalizeKey(key) === 'max_pause' ? 'maxPause' : 'agentTimeout'] = ms
        break
      }
      case 'allowed_tools':
        if (Array.isArray(raw) && raw.every((tool) => typeof tool === 'string')) settings.allowedTools = raw
        else if (typeof raw === 'string') settings.allowedTools = raw.split(/[,\s]+/).filter(Boolean)
        else problem(key, 'a list of tool names')
        break
      case 'template_data_programs': {
        const names = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(/[,\s]+/).filter(Boolean) : undefined
        if (!names || names.length === 0 || !names.every((name) => typeof name === 'string' && name.trim() !== '' && !/\s/.test(name))) {
          problem(key, 'a list of programs, as the runner template writes them (`[./bin/my-agent]`)')
          break
        }
        const keyAt = findKey(source, key)
        settings.templateDataPrograms = {names: names as string[], position: at.point(keyAt === -1 ? start : valueStart + keyAt)}
        break
      }
      case 'isolation':
        if (raw === 'worktree' || raw === 'none') settings.isolation = raw
        else problem(key, '`worktree` or `none`')
        break
      case 'commit':
        if (typeof raw === 'boolean') settings.commit = raw
        else problem(key, '`true` or `false`')
        break
      default:
      // Other tools share front matter: keep, ignore.
    }
  }
  return settings
}

function findKey(source: string, key: string): number {
  const match = new RegExp(`^${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*:`, 'm').exec(source)
  return match ? match.index : -1
}
