import {existsSync} from 'node:fs'
import {readFile} from 'node:fs/promises'
import {random} from '../../bench/random.js'

/**
 * Launches counted from the agents' side: every agent script appends `start ID ATTEMPT NS` when it begins
 * and `end ID ATTEMPT NS` when it is done to one shared log (O_APPEND: lines never interleave, and the
 * file's order is the order the writes happened in, so overlap is counted from that order; the
 * nanosecond stamps are each agent's own clock, kept for a reader).
 */
export function logged(logFile: string, body: string): string {
  const mark = (what: string) => `printf '${what} %s %s %s\\n' "$MDPLAN_AGENT" "$MDPLAN_ATTEMPT" "$(date +%s%N)" >> '${logFile}'`
  return [mark('start'), body, mark('end')].join('\n')
}

/** Resolves once the first agent has written to the log (it has started); throws after 15 s. */
export async function waitForFirstStart(logFile: string): Promise<void> {
  for (let waited = 0; !existsSync(logFile); waited += 50) {
    if (waited > 15_000) throw new Error(`no agent started: ${logFile} was never written`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

export interface AgentSide {
  /** `ID#ATTEMPT` → how many times that attempt started. */
  starts: Map<string, number>
  /** Attempts that started and never wrote `end` (killed, or still running). */
  unfinished: string[]
  /** The most attempts between `start` and `end` at one moment. */
  peak: number
  lines: string[]
}

/** The log from line `from` on (so one run's launches can be told from an earlier run's). */
export async function readAgentLog(logFile: string, from = 0): Promise<AgentSide> {
  const text = existsSync(logFile) ? await readFile(logFile, 'utf8') : ''
  const lines = text
    .split('\n')
    .filter((line) => line !== '')
    .slice(from)
  const starts = new Map<string, number>()
  const open = new Set<string>()
  let peak = 0
  for (const line of lines) {
    const [what, id, attempt] = line.split(' ')
    const key = `${id}#${attempt}`
    if (what === 'start') {
      starts.set(key, (starts.get(key) ?? 0) + 1)
      open.add(key)
      peak = Math.max(peak, open.size)
    } else if (what === 'end') open.delete(key)
  }
  return {starts, unfinished: [...open], peak, lines}
}

/** Attempts started more than once (should be none). */
export function duplicates(side: AgentSide): string[] {
  return [...side.starts].filter(([, count]) => count > 1).map(([key, count]) => `${key} ×${count}`)
}

export interface EventSide {
  /** `ID#ATTEMPT` → how many `launched` events. */
  launched: Map<string, number>
  peak: number
  exitCode: number | undefined
  types: string[]
}

/** Peak concurrency and launches from `--json`: launched opens a slot; completed, failed or question closes it. */
export function readEvents(stdout: string): EventSide {
  const launched = new Map<string, number>()
  const live = new Set<string>()
  const types: string[] = []
  let peak = 0
  let exitCode: number | undefined
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue
    const event = JSON.parse(line) as {type: string; agent?: string; attempt?: number; exitCode?: number}
    types.push(event.type)
    if (event.type === 'launched') {
      const key = `${event.agent}#${event.attempt}`
      launched.set(key, (launched.get(key) ?? 0) + 1)
      live.add(event.agent!)
      peak = Math.max(peak, live.size)
    } else if (event.type === 'completed' || event.type === 'failed' || event.type === 'question') live.delete(event.agent!)
    else if (event.type === 'run-finished') exitCode = event.exitCode
  }
  return {launched, peak, exitCode, types}
}

export interface DagAgent {
  id: string
  deps: string[]
  ms: number
}

/** A seeded random DAG (bench/random.js): each agent depends on up to 3 of the 8 before it. */
export function randomDag(count: number, seed: number, minMs = 20, maxMs = 120): DagAgent[] {
  const rand = random(seed)
  const agents: DagAgent[] = []
  for (let index = 0; index < count; index++) {
    const deps = new Set<string>()
    const many = index === 0 ? 0 : Math.floor(rand() * 4)
    for (let k = 0; k < many; k++) deps.add(`T${Math.max(0, index - 1 - Math.floor(rand() * Math.min(8, index)))}`)
    agents.push({id: `T${index}`, deps: [...deps].sort(), ms: Math.round(minMs + rand() * (maxMs - minMs))})
  }
  return agents
}
