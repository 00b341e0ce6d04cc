import pc from 'picocolors'
import type {RunEvent} from '../events.js'
import {formatDuration} from '../util/format-duration.js'
import {plural} from '../util/plural.js'

export interface FormatEventLineOptions {
  color?: boolean
}

/**
 * One event as one line for logs (CI, pipes): `14:22:10 launched B (attempt 1) log .mdplan/…`.
 * The time is the event's own, in UTC, so lines from different machines line up.
 */
export function formatEventLine(event: RunEvent, options: FormatEventLineOptions = {}): string {
  const c = pc.createColors(options.color ?? false)
  const time = /T(\d\d:\d\d:\d\d)/.exec(event.time)?.[1] ?? event.time
  return `${c.dim(time)} ${describe(event, c)}`
}

function describe(event: RunEvent, c: ReturnType<typeof pc.createColors>): string {
  switch (event.type) {
    case 'run-started':
      return `${event.resumed ? 'resumed' : 'started'} ${event.plan}: ${plural(event.agents, 'agent')}, concurrency ${event.concurrency}${event.accounts?.length ? `, account caps: ${event.accounts.join(', ')}` : ''}`
    case 'verification-started':
      return `${event.phase} verification: ${event.command}`
    case 'verification-finished': {
      const tries = plural(event.attempts, 'attempt')
      const result = event.ok ? c.green('passed') : c.red('FAILED')
      return `${event.phase} verification ${result} (${tries})${event.log ? ` log ${event.log}` : ''}`
    }
    case 'launched':
      return `${c.cyan('launched')} ${event.agent} (attempt ${event.attempt}${event.resumed ? ', resumed' : ''})${idOf(event.agentId)}${event.host && event.host !== 'local' ? ` on ${event.host} as ${event.job ?? ''}` : ''} log ${event.log}`
    case 'agent-id':
      return `${event.agent} agent id ${event.agentId}`
    case 'completed':
      return (
        `${c.green('completed')} ${event.agent} in ${formatDuration(event.durationMs)} (attempt ${event.attempt})` +
        (event.costUsd === undefined ? '' : ` $${event.costUsd.toFixed(2)}`) +
        (event.note ? `: ${event.note}` : '')
      )
    case 'failed':
      return `${c.red('failed')} ${event.agent} after ${formatDuration(event.durationMs)} (attempt ${event.attempt}): ${event.reason}${event.willRetry ? ', will retry' : ''}`
    case 'question':
      return `${c.yellow('question')} from ${event.agent}: ${event.question}`
    case 'awaiting-review':
      return `${c.yellow('awaiting review')} ${event.agent} after ${formatDuration(event.durationMs)} (attempt ${event.attempt})${event.note ? `: ${event.note}` : ''}`
    case 'approved':
      return `${c.green('approved')} ${event.agent}: its work is in`
    case 'blocked':
      return `blocked ${event.agent} by ${event.by.join(', ')}`
    case 'paused':
      return `${c.yellow('paused')}: ${event.reason} (until ${new Date(event.untilMs).toISOString().slice(11, 19)})`
    case 'budget':
      return `${event.reached ? c.red('budget reached') : c.yellow('budget')}: ${event.line.replace(/^budget(?: reached)?: /, '')}`
    case 'human-edit':
      return `hand edit kept: ${event.agent} ${event.column} = ${event.value}`
    case 'state-written':
      return `state written to ${event.file} (${event.bytes} bytes, ${event.ms.toFixed(1)}ms)`
    case 'warning':
      return `${c.yellow('warning')}: ${event.message}`
    case 'run-finished':
      return `finished, exit code ${event.exitCode}`
    case 'child':
      return `${event.agent} › ${describe(event.event, c)}`
  }
}

function idOf(agentId: string | undefined): string {
  return agentId ? ` id ${agentId}` : ''
}
