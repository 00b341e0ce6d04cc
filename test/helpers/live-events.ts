import {renameSync, writeFileSync} from 'node:fs'
import type {startCli} from './run-cli.js'

export interface LiveEvent {
  type: string
  agent?: string
  column?: string
  value?: string
  message?: string
  attempt?: number
  log?: string
}

/** The `--json` events of a run that is still going, as they come; `until` waits for one that matches. */
export function liveEvents(run: ReturnType<typeof startCli>): {events: LiveEvent[]; until: (match: (event: LiveEvent) => boolean, what: string, ms?: number) => Promise<LiveEvent>} {
  const events: LiveEvent[] = []
  const waiting = new Set<() => void>()
  let rest = ''
  run.stdout!.on('data', (chunk: Buffer) => {
    rest += chunk.toString()
    const lines = rest.split('\n')
    rest = lines.pop()!
    for (const line of lines) if (line.startsWith('{')) events.push(JSON.parse(line) as LiveEvent)
    for (const wake of [...waiting]) wake()
  })
  let ended = false
  void run.then(() => {
    ended = true
    for (const wake of [...waiting]) wake()
  })
  const until = (match: (event: LiveEvent) => boolean, what: string, ms = 15_000): Promise<LiveEvent> =>
    new Promise((resolve, reject) => {
      // Only events from now on: an earlier one of the same kind is not the one waited for.
      let from = events.length
      const timer = setTimeout(() => done(new Error(`the run never emitted ${what} in ${ms} ms; it emitted:\n${JSON.stringify(events)}`)), ms)
      const look = (): void => {
        const found = events.slice(from).find(match)
        from = events.length
        if (found) done(undefined, found)
        else if (ended) done(new Error(`the run ended before it emitted ${what}; it emitted:\n${JSON.stringify(events)}`))
      }
      const done = (error?: Error, event?: LiveEvent): void => {
        clearTimeout(timer)
        waiting.delete(look)
        if (error) reject(error)
        else resolve(event!)
      }
      waiting.add(look)
    })
  return {events, until}
}

/** Save `text` as an editor does: a temp file renamed over the plan. */
export function saveByRename(file: string, text: string): void {
  writeFileSync(`${file}.tmp~`, text)
  renameSync(`${file}.tmp~`, file)
}

/** `text` with one row's cell (0: Agent, 1: Status, 2: Agent ID, 3: Duration, 4: Notes) replaced. */
export function withCell(text: string, agent: string, cell: number, edit: (value: string) => string): string {
  const line = text.split('\n').find((l) => l.startsWith(`| ${agent} |`))
  if (!line) throw new Error(`no row for ${agent} in:\n${text}`)
  const cells = line.split(' | ')
  const last = cells.length - 1
  cells[last] = cells[last]!.replace(/ ?\|$/, '')
  cells[cell] = cell === 0 ? `| ${edit(cells[0]!.slice(2))}` : edit(cells[cell]!.trim())
  return text.replace(line, `${cells.join(' | ')} |`)
}
