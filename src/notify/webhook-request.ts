import {basename} from 'node:path'
import {version} from '../version.js'
import type {NotifyEvent} from './notify-event.js'
import type {TargetPlace} from './notify-target.js'

export interface WebhookRequest {
  url: string
  headers: Record<string, string>
  body: string
}

type Webhook = Extract<TargetPlace, {type: 'webhook' | 'slack'}>

/**
 * The POST a webhook target gets: the event as JSON (`webhook`), or Slack's incoming-webhook shape `{"text": …}`
 * (`slack`); the event's id in `Idempotency-Key` either way, so a receiver drops a delivery it already had (a
 * coordinator killed between the send and its record sends it again). The URL and the headers that come from
 * the environment are read from `env` now; `{missing}` names a variable that is not set. Pure.
 */
export function webhookRequest(target: Webhook, event: NotifyEvent, env: Readonly<Record<string, string | undefined>>): WebhookRequest | {missing: string} {
  const url = 'url' in target.url ? target.url.url : env[target.url.env]
  if (url === undefined || url === '') return {missing: 'env' in target.url ? target.url.env : 'the URL'}
  const headers: Record<string, string> = {'content-type': 'application/json', 'idempotency-key': event.id, 'user-agent': `mdplan/${version}`}
  for (const [name, variable] of Object.entries(target.headersEnv)) {
    const value = env[variable]
    if (value === undefined || value === '') return {missing: variable}
    headers[name.toLowerCase()] = value
  }
  const body = target.type === 'slack' ? JSON.stringify({text: slackText(event)}) : JSON.stringify(event)
  return {url, headers, body}
}

/**
 * One line for Slack: the plan's name, then the event's text, escaped as Slack asks (`&`, `<`, `>`), so an
 * agent's question can neither mention `<!channel>` nor make a link.
 */
export function slackText(event: NotifyEvent): string {
  const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
  return `${event.needs_you ? ':raising_hand: ' : ''}mdplan ${escape(basename(event.plan))}: ${escape(event.text)}`
}
