const scale: Record<string, number> = {'': 1, k: 1e3, m: 1e6, g: 1e9, b: 1e9}

/**
 * A token count as people write one: `20M`, `1.5k`, `20000000`, `20_000_000`, `20,000,000`, `2B` (`k` a
 * thousand, `M` a million, `B` or `G` a billion; any case). Undefined when the text (or number) is no
 * positive count.
 */
export function parseTokenCount(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? Math.round(value) : undefined
  if (typeof value !== 'string') return undefined
  let text = value.trim().replace(/_/g, '')
  // Commas only as thousands separators (`20,000,000`): `1,5k` is no count.
  if (/^\d{1,3}(?:,\d{3})+(?:\.\d+)?\s*[a-z]?$/i.test(text)) text = text.replace(/,/g, '')
  const match = /^(\d+(?:\.\d+)?|\.\d+)\s*([kmgb]?)$/i.exec(text)
  if (!match) return undefined
  const count = Math.round(Number(match[1]) * scale[match[2]!.toLowerCase()]!)
  return count > 0 ? count : undefined
}
