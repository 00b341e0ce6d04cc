import {createHash} from 'node:crypto'
import type {NotifyKind} from './notify-event.js'

/** Where a URL comes from: written in the plan, or the name of an environment variable that holds it (a secret). */
export type UrlSource = {url: string} | {env: string}

/** Where a target delivers: a webhook (generic JSON, or Slack's format), a command, the desktop. */
export type TargetPlace =
  | {type: 'webhook'; url: UrlSource; headersEnv: Record<string, string>}
  | {type: 'slack'; url: UrlSource; headersEnv: Record<string, string>}
  | {type: 'command'; argv: string[]}
  | {type: 'desktop'}

/** One target of front matter `notify:`, as read (src/notify/read-notify.ts). */
export type NotifyTarget = TargetPlace & {
  /** The kinds it gets; undefined: every kind. */
  events?: readonly NotifyKind[]
  /** Names it in the delivery log, stable while its definition stays (`webhook-1a2b3c4d`): see targetKey. */
  key: string
}

/**
 * A target's name in the delivery log: its type and a digest of what says where it delivers (not its
 * `events:` filter), so reordering the targets keeps each one's record, and a target changed is a new one.
 */
export function targetKey(target: TargetPlace): string {
  const {type, ...where} = target
  return `${type}-${createHash('sha256').update(JSON.stringify(where)).digest('hex').slice(0, 8)}`
}

/** Whether `target` takes events of `kind`. */
export function wants(target: Pick<NotifyTarget, 'events'>, kind: NotifyKind): boolean {
  return target.events === undefined || target.events.includes(kind)
}
