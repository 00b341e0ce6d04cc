/**
 * What a template or shell agent says it spent, in its output's last `USAGE:` line (the result protocol's
 * counterpart of what the CLIs report): `USAGE: tokens=1500 usd=0.02`, or `input=1200 output=300
 * cost=0.02` (`key: value` and commas work too). Tokens go into `usage` as the runner's own counts
 * (spent-tokens.ts sums them); `usd` (or `cost`, `$0.02`) is the run's dollars. Undefined when there is none.
 */
export function usageLine(text: string): {usage?: Record<string, number>; costUsd?: number} | undefined {
  const lines = [...text.matchAll(/^[ \t]*USAGE:[ \t]*(.*)$/gm)]
  const line = lines.at(-1)?.[1]
  if (line === undefined) return undefined
  const usage: Record<string, number> = {}
  let costUsd: number | undefined
  for (const [, rawKey, rawValue] of line.matchAll(/([A-Za-z_.]+)\s*[=:]\s*\$?([\d.,_]+)/g)) {
    const key = rawKey!.toLowerCase()
    const value = Number(rawValue!.replace(/[,_]/g, ''))
    if (!Number.isFinite(value)) continue
    if (key === 'usd' || key === 'cost' || key === 'cost_usd') costUsd = value
    else if (key === 'tokens' || key === 'total' || key === 'total_tokens') usage.tokens = value
    else if (key === 'input' || key === 'output' || key === 'input_tokens' || key === 'output_tokens') usage[key.replace(/_tokens$/, '')] = value
  }
  const found = Object.keys(usage).length > 0
  if (!found && costUsd === undefined) return undefined
  return {...(found ? {usage} : {}), ...(costUsd !== undefined ? {costUsd} : {})}
}
