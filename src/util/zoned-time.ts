/** A wall-clock time in a time zone: what a person in that zone reads on their clock. */
export interface WallTime {
  year: number
  /** 1–12. */
  month: number
  day: number
  hour: number
  minute: number
}

const formats = new Map<string, Intl.DateTimeFormat>()

function formatOf(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone)
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric'})
    formats.set(zone, format)
  }
  return format
}

/** Whether `zone` is an IANA time zone this Node knows (`Europe/Paris`, `UTC`). */
export function knownZone(zone: string): boolean {
  try {
    formatOf(zone)
    return true
  } catch {
    return false
  }
}

/** The wall time at instant `ms` in `zone`. */
export function wallTimeAt(ms: number, zone: string): WallTime {
  const parts: Record<string, number> = {}
  for (const part of formatOf(zone).formatToParts(ms)) if (part.type !== 'literal') parts[part.type] = Number(part.value)
  return {year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour! % 24, minute: parts.minute!}
}

/**
 * The instant a wall time in `zone` names. In a DST gap the hour that does not exist reads as the hour
 * after; in a DST overlap, the first of the two instants.
 */
export function zonedTime(wall: WallTime, zone: string): number {
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute)
  // The zone's offset near the instant, then once more at the instant found (it may sit across a DST change).
  let guess = asUtc - offsetAt(asUtc, zone)
  guess = asUtc - offsetAt(guess, zone)
  return guess
}

/** The zone's offset from UTC at instant `ms`, in ms. */
function offsetAt(ms: number, zone: string): number {
  const wall = wallTimeAt(ms, zone)
  const seen = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute)
  return seen - Math.floor(ms / 60_000) * 60_000
}

/** The wall date `days` days after the given one (the calendar's, whatever the zone). */
export function addDays(wall: WallTime, days: number): WallTime {
  const date = new Date(Date.UTC(wall.year, wall.month - 1, wall.day + days))
  return {...wall, year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate()}
}
