import {resolve} from 'node:path'
import type {Io} from './io.js'
import {directoryProblem} from './directory-problem.js'
import {exitCodes} from '../exit-codes.js'
import {parseDuration} from '../util/parse-duration.js'
import type {SideStateChoice} from '../store/read-side-state.js'
import {readBudget} from '../plan/read-budget.js'
import type {Budget} from '../plan/types.js'

/** `mdplan run`'s flags, as commander gives them. */
export interface RunFlags {
  concurrency?: string
  runner?: string
  maxAttempts?: string
  agentTimeout?: string
  maxPause?: string
  waitForReset?: boolean
  budget?: string
  failFast?: boolean
  strictScope?: boolean
  dryRun?: boolean
  /** `--serve [port]`: true, or the port. */
  serve?: boolean | string
  prompts?: boolean
  importState?: boolean
  ignoreStateFile?: boolean
  cwd?: string
  json?: boolean
  quiet?: boolean
  color?: boolean
  model?: string
  permissionMode?: string
  allowedTools?: string[]
  maxTurns?: string
  maxBudgetUsd?: string
  host?: string
}

/** The flags' values that need reading: numbers, durations, the side-file choice, where agents run. */
export interface ReadRunFlags {
  /** By flag name: `concurrency`, `max-attempts`, `max-turns`, `max-budget-usd`. */
  numbers: Record<string, number | undefined>
  agentTimeoutMs?: number
  maxPauseMs?: number
  sideState?: SideStateChoice
  /** `--budget tokens=20M,usd=50`: this run's budget, instead of the front matter's. */
  budget?: Budget
  /** Where agents run, resolved. */
  cwd: string
}

/** Read `mdplan run`'s flags, or say on stderr what is wrong with one and resolve to the exit code. */
export function readRunFlags(flags: RunFlags, io: Io): ReadRunFlags | number {
  const numbers: Record<string, number | undefined> = {}
  for (const [name, value] of [
    ['concurrency', flags.concurrency],
    ['max-attempts', flags.maxAttempts],
    ['max-turns', flags.maxTurns],
    ['max-budget-usd', flags.maxBudgetUsd]
  ] as const) {
    if (value === undefined) continue
    const number = Number(value)
    if (!Number.isFinite(number) || number <= 0) {
      io.stderr(`mdplan run: --${name} must be a positive number, got ${JSON.stringify(value)}\n`)
      return exitCodes.invalid
    }
    numbers[name] = number
  }
  const agentTimeoutMs = duration('agent-timeout', flags.agentTimeout, io)
  if (agentTimeoutMs === null) return exitCodes.invalid
  const maxPauseMs = duration('max-pause', flags.maxPause, io)
  if (maxPauseMs === null) return exitCodes.invalid
  const budget = flags.budget === undefined ? undefined : readBudget(flags.budget)
  if (budget && 'problem' in budget) {
    io.stderr(`mdplan run: --budget must be ${budget.problem.replace(/`\{tokens: 20M, usd: 50\}`/, '`tokens=20M,usd=50`')}; got ${JSON.stringify(flags.budget)}\n`)
    return exitCodes.invalid
  }
  if (flags.importState && flags.ignoreStateFile) {
    io.stderr('mdplan run: choose one of --import-state and --ignore-state-file\n')
    return exitCodes.invalid
  }
  if (flags.prompts && !flags.dryRun) {
    io.stderr('mdplan run: --prompts goes with --dry-run (mdplan run --dry-run --prompts PLAN)\n')
    return exitCodes.invalid
  }
  const sideState = flags.importState ? 'import' : flags.ignoreStateFile ? 'ignore' : undefined
  const cwd = resolve(io.cwd, flags.cwd ?? '.')
  const cwdProblem = directoryProblem(cwd)
  if (cwdProblem !== undefined) {
    io.stderr(`mdplan run: --cwd ${flags.cwd ?? cwd} ${cwdProblem}; nothing was run and the plan was not changed. Create it or choose another folder.\n`)
    return exitCodes.invalid
  }
  return {numbers, agentTimeoutMs, maxPauseMs, sideState, cwd, ...(budget ? {budget: budget.budget} : {})}
}

/** A duration flag in ms (undefined when not given), or null once stderr says it is not one. */
function duration(name: string, value: string | undefined, io: Io): number | undefined | null {
  if (value === undefined) return undefined
  const ms = parseDuration(value)
  if (ms === undefined || ms <= 0) {
    io.stderr(`mdplan run: --${name} must be a duration such as 90s, 30m or 1h30m, got ${JSON.stringify(value)}\n`)
    return null
  }
  return ms
}
