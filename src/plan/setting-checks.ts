import {parseDuration} from '../util/parse-duration.js'
import {readBudget} from './read-budget.js'
import {readAccountCaps} from './read-account-caps.js'
import type {Point, Settings} from './types.js'

/** One front-matter key as its check sees it: the settings it fills in, and the key's place in the file. */
export interface SettingKey {
  settings: Settings
  /** Report that the key's value must be `expected`, at the key (or at the front matter, when the key is not found). */
  problem: (expected: string) => void
  /** Where the key is written, or undefined when it is not found at the start of a line. */
  found: () => Point | undefined
  /** Where the key is written, or the front matter's start when it is not found. */
  place: () => Point
  /** Where a key under this one is written (`claude` under `accounts:`), or this key's place when it is not found. */
  nested: (name: string) => Point
  /** Report a problem in the words given, at a point. */
  problemAt: (reason: string, place: Point) => void
}

/** Checks a key's value and, when it is right, sets it in the settings. */
type SettingCheck = (raw: unknown, key: SettingKey) => void

/** A non-empty string; `then` runs once it is set. */
function text(name: 'runner' | 'build' | 'model' | 'permissionMode', then?: (key: SettingKey) => void): SettingCheck {
  return (raw, key) => {
    if (typeof raw !== 'string' || raw.trim() === '') return key.problem('a non-empty string')
    key.settings[name] = raw
    then?.(key)
  }
}

function wholeNumber(name: 'concurrency' | 'maxAttempts' | 'maxTurns'): SettingCheck {
  return (raw, key) => {
    if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1) return key.problem('a whole number of at least 1')
    key.settings[name] = raw
  }
}

/** A duration, kept in milliseconds. */
function duration(name: 'agentTimeout' | 'maxPause'): SettingCheck {
  return (raw, key) => {
    const ms = typeof raw === 'number' || typeof raw === 'string' ? parseDuration(String(raw)) : undefined
    if (ms === undefined || ms <= 0) key.problem('a duration such as `30m`, `45s` or `1h30m`')
    else key.settings[name] = ms
  }
}

/**
 * The settings front matter may hold, by normalized key (`max-attempts` →
 * `max_attempts`), each with its check. A key not here belongs to another
 * tool that shares front matter: kept in `raw`, ignored.
 */
export const settingChecks = new Map<string, SettingCheck>([
  [
    'runner',
    text('runner', (key) => {
      const point = key.found()
      if (point) key.settings.runnerPosition = point
    })
  ],
  ['build', text('build')],
  ['model', text('model')],
  ['permission_mode', text('permissionMode')],
  ['concurrency', wholeNumber('concurrency')],
  ['max_attempts', wholeNumber('maxAttempts')],
  ['max_turns', wholeNumber('maxTurns')],
  [
    'max_budget_usd',
    (raw, key) => {
      if (typeof raw !== 'number' || !(raw > 0)) key.problem('a positive number')
      else key.settings.maxBudgetUsd = raw
    }
  ],
  ['agent_timeout', duration('agentTimeout')],
  ['max_pause', duration('maxPause')],
  [
    'allowed_tools',
    (raw, key) => {
      if (Array.isArray(raw) && raw.every((tool) => typeof tool === 'string')) key.settings.allowedTools = raw
      else if (typeof raw === 'string') key.settings.allowedTools = raw.split(/[,\s]+/).filter(Boolean)
      else key.problem('a list of tool names')
    }
  ],
  [
    'template_data_programs',
    (raw, key) => {
      const names = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(/[,\s]+/).filter(Boolean) : undefined
      if (!names || names.length === 0 || !names.every((name) => typeof name === 'string' && name.trim() !== '' && !/\s/.test(name))) {
        return key.problem('a list of programs, as the runner template writes them (`[./bin/my-agent]`)')
      }
      key.settings.templateDataPrograms = {names: names as string[], position: key.place()}
    }
  ],
  [
    'isolation',
    (raw, key) => {
      if (raw === 'worktree' || raw === 'none') key.settings.isolation = raw
      else key.problem('`worktree` or `none`')
    }
  ],
  [
    'commit',
    (raw, key) => {
      if (typeof raw === 'boolean') key.settings.commit = raw
      else key.problem('`true` or `false`')
    }
  ],
  [
    'review',
    (raw, key) => {
      if (typeof raw === 'boolean') key.settings.review = raw
      else key.problem('`true` or `false`')
    }
  ],
  [
    'budget',
    (raw, key) => {
      const read = readBudget(raw)
      if ('problem' in read) key.problem(read.problem)
      else key.settings.budget = read.budget
    }
  ],
  [
    'budget_warn',
    (raw, key) => {
      // `0.8`, or `80%` as people say it.
      const share = typeof raw === 'string' && /^\s*\d+(?:\.\d+)?\s*%\s*$/.test(raw) ? Number(raw.replace(/[%\s]/g, '')) / 100 : raw
      if (typeof share !== 'number' || !(share > 0 && share <= 1)) key.problem('a share of the budget above 0 and at most 1, such as `0.8` or `80%`')
      else key.settings.budgetWarn = share
    }
  ],
  [
    'on_budget',
    (raw, key) => {
      if (raw === 'finish' || raw === 'stop') key.settings.onBudget = raw
      else key.problem('`finish` (let running agents finish) or `stop` (end them as Ctrl-C does)')
    }
  ],
  [
    'accounts',
    (raw, key) => {
      const read = readAccountCaps(raw)
      for (const {name, problem} of read.problems) {
        if (name === undefined) return key.problem(problem)
        key.problemAt(`front matter \`accounts\`: ${problem}`, key.nested(name))
      }
      const entries = Object.fromEntries(Object.keys(read.caps).map((name) => [name, key.nested(name)]))
      key.settings.accounts = {caps: read.caps, position: key.place(), entries}
    }
  ],
  [
    'wait_for_reset',
    (raw, key) => {
      if (typeof raw === 'boolean') key.settings.waitForReset = raw
      else key.problem('`true` or `false`')
    }
  ]
])
