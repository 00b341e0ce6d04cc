import type {RunEvent} from '../events.js'
import {exitCodes} from '../exit-codes.js'
import {eventId, textDigest} from './event-id.js'
import {notifySchemaVersion, type NotifyEvent} from './notify-event.js'

/** What an event's id and fields need beyond the event itself. */
export interface NotifyContext {
  /** `notifyPlanKey(plan)`. */
  planKey: string
  /** The plan file, absolute. */
  plan: string
  /** When this run started (ISO 8601): a run's end is told once per run. */
  runStarted: string
}

/**
 * The notification a run's event makes, if any: a question asked, a review waiting, an agent failed for good (no
 * attempt left), a usage-limit wait begun, the run finished or stopped. Pure.
 */
export function notifyEventOf(event: RunEvent, context: NotifyContext): NotifyEvent | undefined {
  const base = {v: notifySchemaVersion, time: event.time, plan: context.plan} as const
  switch (event.type) {
    case 'question': {
      const attempt = event.attempt ?? 0
      // An answered agent goes on in the same attempt and may ask again: the question tells the two apart.
      const id = eventId(context.planKey, 'question', event.agent, attempt, textDigest(event.question))
      return {...base, id, kind: 'question', agent: event.agent, attempt, text: oneLine(`${event.agent} asks: ${event.question}`), needs_you: true}
    }
    case 'awaiting-review':
      return {
        ...base,
        id: eventId(context.planKey, 'review_waiting', event.agent, event.attempt),
        kind: 'review_waiting',
        agent: event.agent,
        attempt: event.attempt,
        text: oneLine(`${event.agent} waits for your review${event.note ? `: ${event.note}` : ''}`),
        needs_you: true
      }
    case 'failed':
      if (event.willRetry) return undefined
      return {
        ...base,
        id: eventId(context.planKey, 'failed', event.agent, event.attempt),
        kind: 'failed',
        agent: event.agent,
        attempt: event.attempt,
        text: oneLine(`${event.agent} failed for good (attempt ${event.attempt}): ${event.reason}`),
        needs_you: true
      }
    case 'paused': {
      // Only a usage limit names its account; a run-wide backoff (network trouble) passes by itself.
      if (event.account === undefined) return undefined
      const until = new Date(event.untilMs).toISOString()
      const id = eventId(context.planKey, 'usage_limit', event.account, until)
      return {...base, id, kind: 'usage_limit', account: event.account, until, text: oneLine(`usage limit: launches on ${event.account} wait until ${until} (${event.reason})`), needs_you: false}
    }
    case 'run-finished':
      return runEnd(event, context, base)
    default:
      return undefined
  }
}

function runEnd(event: Extract<RunEvent, {type: 'run-finished'}>, context: NotifyContext, base: Pick<NotifyEvent, 'v' | 'time' | 'plan'>): NotifyEvent {
  const kind = event.exitCode === exitCodes.interrupted ? 'run_stopped' : 'run_finished'
  const counts = Object.fromEntries(Object.entries(event.scorecard.counts).filter(([, n]) => n > 0))
  const said = Object.entries(counts).map(([status, n]) => `${n} ${status}`)
  const text = `run ${kind === 'run_stopped' ? 'stopped' : 'finished'} (exit ${event.exitCode}): ${said.join(', ') || 'no agents'}`
  return {...base, id: eventId(context.planKey, kind, context.runStarted), kind, text: oneLine(text), needs_you: event.exitCode !== exitCodes.ok, exit_code: event.exitCode, counts}
}

/** One line of at most 300 characters: a question's options and a reason's details are in the plan and the log. */
function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length <= 300 ? line : `${line.slice(0, 299)}…`
}
