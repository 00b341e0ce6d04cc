import {addDays, wallTimeAt, zonedTime, type WallTime} from '../util/zoned-time.js'

const months = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']

/** A limit said to reset a little before now has reset now (the CLI rounded to the minute): not tomorrow. */
const slackMs = 5 * 60_000

/**
 * The instant a time of day a CLI printed names, in `zone`: `3pm`, `3:30pm`, `3:05 PM`, `15:00`, with or
 * without a date before it (`Dec 1, 3pm`, `Dec 1, 2027, 3pm`, `Nov 29th, 2026 3:05 PM`, `Dec 1 at 3pm`).
 * With no date, the next such time after `now` (a `3am` said at 23:00 is tomorrow's); with a date and no
 * year, the next such date. Undefined when the text is no time of day.
 */
export function parseWallClock(text: string, now: number, zone: string): number | undefined {
  const time = /(\d{1,2})(?::(\d\d))?\s*(?:([ap])\.?m\.?)?\s*$/i.exec(text.trim())
  if (!time) return undefined
  let hour = Number(time[1])
  const minute = time[2] === undefined ? 0 : Number(time[2])
  const half = time[3]?.toLowerCase()
  if (half === undefined && time[2] === undefined) return undefined
  if (half !== undefined) {
    if (hour < 1 || hour > 12) return undefined
    hour = (hour % 12) + (half === 'p' ? 12 : 0)
  }
  if (hour > 23 || minute > 59) return undefined
  const today = wallTimeAt(now, zone)
  const datePart = text.trim().slice(0, time.index)
  const date = /([A-Za-z]{3})[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?/.exec(datePart)
  if (!date) {
    const wall: WallTime = {...today, hour, minute}
    const at = zonedTime(wall, zone)
    return at >= now - slackMs ? at : zonedTime(addDays(wall, 1), zone)
  }
  const month = months.indexOf(date[1]!.toLowerCase()) + 1
  if (month === 0) return undefined
  const day = Number(date[2])
  if (date[3] !== undefined) return zonedTime({year: Number(date[3]), month, day, hour, minute}, zone)
  const thisYear = zonedTime({year: today.year, month, day, hour, minute}, zone)
  return thisYear >= now - slackMs ? thisYear : zonedTime({year: today.year + 1, month, day, hour, minute}, zone)
}
