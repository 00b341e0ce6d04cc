/** One JSON event of a CLI's stream, or undefined for anything else (banners, partial lines). */
export function parseJsonLine(line: string): Record<string, unknown> | undefined {
  const start = line.indexOf('{')
  if (start === -1) return undefined
  try {
    const value: unknown = JSON.parse(start === 0 ? line : line.slice(start))
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

/** Numeric fields of an object (one level, plus nested objects flattened as `a.b`). */
export function numericFields(value: unknown, prefix = ''): Record<string, number> {
  const out: Record<string, number> = {}
  if (value === null || typeof value !== 'object') return out
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    if (typeof field === 'number' && Number.isFinite(field)) out[prefix + key] = field
    else if (field !== null && typeof field === 'object' && !Array.isArray(field)) Object.assign(out, numericFields(field, `${prefix}${key}.`))
  }
  return out
}
