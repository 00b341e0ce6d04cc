/**
 * A token count in three figures with its unit, as a person reads a budget: `950`, `1.5k`, `16.2M`, `20M`,
 * `1.2B`. The figures are cut, not rounded up, so a count just short of a budget never reads as the budget.
 */
export function formatTokenCount(count: number): string {
  const units: Array<[number, string]> = [
    [1e9, 'B'],
    [1e6, 'M'],
    [1e3, 'k']
  ]
  for (const [size, unit] of units) {
    if (count < size) continue
    const value = count / size
    const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2
    const cut = Math.floor(value * 10 ** digits) / 10 ** digits
    return `${String(Number(cut.toFixed(digits)))}${unit}`
  }
  return String(Math.round(count))
}
