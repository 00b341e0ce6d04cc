/** How a plan writes its times, read from a value it has: ISO with Z (mdplan's own), or one a person or another tool chose. */
export type StampFormat = 'iso' | 'local' | 'local-t' | 'local-minutes' | 'utc-suffix'

const formats: Array<[StampFormat, RegExp]> = [
  ['iso', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/],
  ['local', /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/],
  ['local-t', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/],
  ['local-minutes', /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/],
  ['utc-suffix', /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/]
]

/** The format of the first of `samples` that has one a reader can parse back; ISO when none has. */
export function stampFormat(...samples: Array<string | undefined>): StampFormat {
  for (const sample of samples) {
    const value = sample?.trim()
    if (!value) continue
    const found = formats.find(([, pattern]) => pattern.test(value))
    if (found) return found[0]
  }
  return 'iso'
}

/**
 * `date` in `format`. The local formats are written in local time, as
 * `Date.parse` (and so `mdplan report`) reads a time without a zone.
 */
export function formatStamp(date: Date, format: StampFormat): string {
  const iso = date.toISOString()
  if (format === 'iso') return iso.replace(/\.\d{3}Z$/, 'Z')
  if (format === 'utc-suffix') return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`
  const pad = (n: number): string => String(n).padStart(2, '0')
  const day = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`
  const minutes = `${pad(date.getHours())}:${pad(date.getMinutes())}`
  if (format === 'local-minutes') return `${day} ${minutes}`
  return `${day}${format === 'local-t' ? 'T' : ' '}${minutes}:${pad(date.getSeconds())}`
}

/** A time a caller gave (ISO) rewritten in the file's format; anything that is not a time stays as given. */
export function restamp(value: string, format: StampFormat): string {
  if (format === 'iso' || stampFormat(value) !== 'iso') return value
  const ms = Date.parse(value)
  return Number.isNaN(ms) ? value : formatStamp(new Date(ms), format)
}
