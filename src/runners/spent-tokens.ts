/**
 * The tokens one run used, from the usage its CLI reported (RunResult.usage), in one number: input, output
 * and cache reads and writes, as each CLI names them. Undefined when it reported none.
 *
 * - claude `usage`: `input_tokens`, `output_tokens`, `cache_read_input_tokens`, `cache_creation_input_tokens`
 * - codex `turn.completed.usage`: `input_tokens` (its `cached_input_tokens` are part of it), `output_tokens`
 *   (its `reasoning_output_tokens` are part of it)
 * - gemini `stats`: `total_tokens`
 * - opencode `step_finish` tokens, summed: `input`, `output`, `reasoning`, `cache.read`, `cache.write`
 * - a template runner's `USAGE:` line: `tokens` (or `input`/`output`)
 */
export function spentTokens(usage: Readonly<Record<string, number>> | undefined): number | undefined {
  if (usage === undefined) return undefined
  const total = usage.total_tokens ?? usage.tokens
  if (total !== undefined) return total
  const parts = [
    'input_tokens',
    'output_tokens',
    'cache_read_input_tokens',
    'cache_creation_input_tokens',
    'input',
    'output',
    'reasoning',
    'cache.read',
    'cache.write'
  ]
  let sum = 0
  let any = false
  for (const key of parts) {
    const value = usage[key]
    if (typeof value !== 'number' || !Number.isFinite(value)) continue
    sum += value
    any = true
  }
  return any ? sum : undefined
}
