import {locate} from './locate.js'
import type {Field, Point} from './types.js'

/**
 * Where a field's value is written (`needle`: where that word of it is), for
 * a message about the value: `- **host**: h9` points at `h9`, not at the
 * item's `-`. Falls back to the field's start.
 */
export function fieldPoint(text: string, field: Field, needle?: string): Point {
  const start = field.position.start.offset
  const end = field.position.end.offset
  const key = text.indexOf(field.rawKey, start)
  const colon = key === -1 || key >= end ? -1 : text.indexOf(':', key + field.rawKey.length)
  if (colon === -1 || colon >= end) return field.position.start
  let at = colon + 1
  if (needle !== undefined) {
    const found = new RegExp(`(?<![\\w.-])${needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w.-])`).exec(text.slice(at, end))
    if (found) return locate(text).point(at + found.index)
  }
  while (at < end && /[\s*]/.test(text[at]!) && text[at] !== '\n') at++
  return locate(text).point(at < end ? at : colon + 1)
}
