import type {PlanStatus} from '../plan/plan-status.js'
import {getNote} from '../plan/notes.js'
import {parseJobNote} from '../hosts/job-key.js'
import {formatDuration} from '../util/format-duration.js'
import {plural} from '../util/plural.js'
import {shellWord} from '../util/shell-word.js'

/** The text view of `mdplan status`: plain lines, no colour, readable in a pipe. */
export function formatStatus(status: PlanStatus): string {
  const lines: string[] = []
  lines.push(`${status.title ?? status.file}${status.title ? `  (${status.file})` : ''}`)
  const counts = Object.entries(status.counts)
    .filter(([, n]) => n > 0)
    .map(([name, n]) => `${n} ${name}`)
  lines.push(`${plural(status.total, 'agent')}: ${counts.join(', ') || 'none'}`)
  lines.push('')
  lines.push(`Ready now:     ${status.ready.join(', ') || '—'}`)
  if (status.running.length > 0) {
    const queued = new Map((status.queued ?? []).map((entry) => [entry.id, entry]))
    // Where each runs: the host its row's `job:` names.
    const notes = new Map(status.agents.map((agent) => [agent.id, agent.notes ?? '']))
    const running = status.running.map((id) => {
      const wait = queued.get(id)
      const host = parseJobNote(getNote(notes.get(id) ?? '', 'job'))?.host
      return wait ? `${id} (queued on ${wait.host} since ${wait.since})` : host ? `${id} (on ${host})` : id
    })
    lines.push(`In progress:   ${running.join(', ')}`)
  }
  for (const entry of status.needsInput) lines.push(`Needs input:   ${entry.id}${entry.question ? ` — ${entry.question}` : ''}`)
  for (const entry of status.awaitingReview) lines.push(`Needs review:  ${entry.id}${entry.result ? ` — ${entry.result}` : ''}`)
  // What needs a person, and the commands that give it.
  const needs = [...status.needsInput.map((entry) => `mdplan answer ${shellWord(status.file)} ${entry.id} "…"`), ...status.awaitingReview.map((entry) => `mdplan review ${shellWord(status.file)} ${entry.id} --approve (or --reject "why")`)]
  if (needs.length > 0) lines.push(`Needs you:     ${needs.join('; ')}`)
  for (const entry of status.failed) lines.push(`Failed:        ${entry.id}${entry.notes ? ` — ${entry.notes}` : ''}`)
  if (status.blocked.length > 0) {
    lines.push('Blocked:')
    for (const entry of status.blocked) {
      const by = entry.by.map((dep) => `${dep.id} (${dep.status})`).join(', ')
      // A failed direct dependency already says so; name the failures further up.
      const further = entry.failedUpstream.filter((id) => !entry.by.some((dep) => dep.id === id))
      const failed = further.length > 0 ? `; upstream ${further.join(', ')} failed` : ''
      lines.push(`  ${entry.id} by ${by}${failed}`)
    }
  }
  const path = status.criticalPath
  if (path.agents.length > 0) {
    const weight = path.unit === 'ms' ? formatDuration(path.weight) : plural(path.weight, 'agent')
    lines.push(`Critical path: ${path.agents.join(' → ')} (${weight})`)
  }
  lines.push('')
  lines.push(`Started:       ${status.started ?? '—'}`)
  lines.push(`Last updated:  ${status.lastUpdated ?? '—'}`)
  // A plan with no build step and no recorded result has nothing to say here (the scorecard omits it too).
  if (status.build) lines.push(`Build:         ${status.build}`)
  for (const [key, value] of Object.entries(status.meta)) {
    if (key === 'started' || key === 'last_updated' || key === 'build') continue
    lines.push(`${(key[0]!.toUpperCase() + key.slice(1).replace(/_/g, ' ') + ':').padEnd(15)}${value}`)
  }
  const spent = status.spent
  if (spent) {
    const parts = [spent.tokens !== undefined ? `${spent.tokens.toLocaleString('en-US')} tokens` : undefined, spent.usd !== undefined ? `$${spent.usd.toFixed(2)}` : undefined]
    lines.push(`${'Spent:'.padEnd(15)}${parts.filter(Boolean).join(', ')}`)
  }
  // Spend against the front matter's budget (a run launches nothing more once it is reached).
  if (status.budget) lines.push(`${'Budget:'.padEnd(15)}${status.budget.summary}${status.budget.reached ? ', reached: raise `budget` to go on' : ''}`)
  // A usage limit's wait, as the plan records it (delete its line to clear it).
  for (const wait of status.waits ?? []) lines.push(`${'Waiting:'.padEnd(15)}${wait.account}: ${wait.what}, resets ${wait.resets}`)
  return lines.join('\n') + '\n'
}
