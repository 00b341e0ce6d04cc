import {createHash} from 'node:crypto'
import {realpathSync} from 'node:fs'
import {dirname, resolve} from 'node:path'
import {planSlug} from '../layout/worktree-names.js'
import {planTarget} from '../store/plan-target.js'
import type {NotifyKind} from './notify-event.js'

/**
 * The plan's part of its events' ids: its key in its folder and a digest of its absolute path (`plan@1a2b3c4d`),
 * so two plans named `plan.md` in two folders or repositories never share an id at one receiver.
 */
export function notifyPlanKey(planFile: string): string {
  const target = resolve(planTarget(planFile))
  let real = target
  try {
    real = realpathSync(target)
  } catch {}
  return `${planSlug(target, dirname(target))}@${createHash('sha256').update(real).digest('hex').slice(0, 8)}`
}

/**
 * An event's id: the plan's key, the kind, then what tells this event from another of its kind (the agent and
 * the attempt; an account and a time), each part URI-encoded so the id is one printable header value.
 */
export function eventId(planKey: string, kind: NotifyKind, ...parts: ReadonlyArray<string | number>): string {
  return [planKey, kind, ...parts.map((part) => encodeURIComponent(String(part)))].join(':')
}

/** A short digest of a text, for an id part that tells two questions of one attempt apart. */
export function textDigest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8)
}
