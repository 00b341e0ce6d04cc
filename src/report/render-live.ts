import pc from 'picocolors'
import {formatDuration} from '../util/format-duration.js'
import {colorStatus} from './color-status.js'
import {countStatuses, waitingOn, type ProgressState} from './progress-state.js'

export interface RenderLiveOptions {
  color?: boolean
  /** Terminal width: long lines are cut, not wrapped, so the redraw stays in place. */
  columns?: number
  /** At most this many `waiting:` lines; the rest are summed up. */
  maxWaiting?: number
}

/**
 * The live view's frame: a line per running agent with its elapsed time,
 * the counts per status, then what waits on what.
 */
export function renderLive(state: ProgressState, nowMs: number, options: RenderLiveOptions = {}): string {
  const c = pc.createColors(options.color ?? false)
  const lines: string[] = []
  const elapsed = state.startedAt === undefined ? '' : `  ${c.dim(formatDuration(Math.max(0, nowMs - state.startedAt)))}`
  lines.push(`${c.bold('mdplan')} ${state.plan ?? ''}${elapsed}`)

  const running = [...state.agents.values()].filter((agent) => agent.status === 'in_progress')
  const idWidth = Math.max(0, ...running.map((agent) => agent.id.length))
  const nameWidth = Math.max(0, ...running.map((agent) => agent.name.length))
  for (const agent of running) {
    const time = agent.startedAt === undefined ? '' : formatDuration(Math.max(0, nowMs - agent.startedAt))
    const attempt = agent.attempt > 1 ? c.yellow(` attempt ${agent.attempt}`) : ''
    const host = agent.host ? c.dim(` on ${agent.host}`) : ''
    lines.push(`  ${c.cyan('▶')} ${agent.id.padEnd(idWidth)}  ${agent.name.padEnd(nameWidth)}  ${time.padStart(7)}${attempt}${host}`)
  }
  if (state.verification) {
    const time = formatDuration(Math.max(0, nowMs - state.verification.startedAt))
    lines.push(`  ${c.cyan('▶')} ${state.verification.phase}: ${state.verification.command}  ${time}`)
  }

  const counts = countStatuses(state)
  const parts = [
    colorStatus(`${counts.completed} completed`, 'completed', c),
    colorStatus(`${counts.in_progress} running`, 'in_progress', c),
    colorStatus(`${counts.pending} pending`, 'pending', c)
  ]
  if (counts.needs_input > 0) parts.push(colorStatus(`${counts.needs_input} need input`, 'needs_input', c))
  if (counts.awaiting_review > 0) parts.push(colorStatus(`${counts.awaiting_review} awaiting review`, 'awaiting_review', c))
  if (counts.failed > 0) parts.push(colorStatus(`${counts.failed} failed`, 'failed', c))
  lines.push(`  ${parts.join(c.dim(' · '))}`)

  if (state.paused && state.paused.untilMs > nowMs) {
    const left = state.paused.untilMs - nowMs
    lines.push(`  ${c.yellow('paused')}: ${state.paused.reason} (${formatDuration(left)} left)`)
  }

  const waiting = waitingOn(state)
  const shown = waiting.slice(0, options.maxWaiting ?? 8)
  for (const {agent, on} of shown) lines.push(`  ${c.dim('waiting:')} ${agent} ← ${on.join(', ')}`)
  if (waiting.length > shown.length) lines.push(`  ${c.dim(`… and ${waiting.length - shown.length} more waiting`)}`)

  return lines.map((line) => (options.columns === undefined ? line : cut(line, options.columns))).join('\n')
}

/** Cut a line to `width` visible characters, keeping colour codes intact. */
function cut(line: string, width: number): string {
  let visible = 0
  let out = ''
  for (const match of line.matchAll(/\x1b\[[0-9;]*m|[^\x1b]/gu)) {
    const piece = match[0]
    if (piece.startsWith('\x1b')) {
      out += piece
      continue
    }
    // Close any colour left open, so the cut does not paint the next line.
    if (visible >= width - 1) return out + '…' + (out.includes('\x1b') ? '\x1b[0m' : '')
    out += piece
    visible++
  }
  return out
}
