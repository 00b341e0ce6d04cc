import {describe, expect, it} from 'vitest'
import {spentTokens} from '../../../src/runners/spent-tokens.js'
import {usageLine} from '../../../src/protocol/usage-line.js'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {planStatus} from '../../../src/plan/plan-status.js'
import {formatStatus} from '../../../src/cli/format-status.js'
import {computeScorecard} from '../../../src/report/compute-scorecard.js'
import {formatScorecard} from '../../../src/report/format-scorecard.js'
import {tableStateFromPlan} from '../../../src/store/table-state.js'

describe('spentTokens: one number from each CLI\'s usage', () => {
  it('claude: input, output and both caches', () => {
    expect(spentTokens({input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 300, cache_creation_input_tokens: 5})).toBe(425)
  })
  it('codex: input and output (cached input and reasoning output are parts of them)', () => {
    expect(spentTokens({input_tokens: 1000, cached_input_tokens: 800, output_tokens: 50, reasoning_output_tokens: 30})).toBe(1050)
  })
  it('gemini: its total', () => {
    expect(spentTokens({total_tokens: 777, input_tokens: 700, output_tokens: 77, cached: 100})).toBe(777)
  })
  it('opencode: input, output, reasoning and the caches', () => {
    expect(spentTokens({input: 10, output: 5, reasoning: 2, 'cache.read': 100, 'cache.write': 1})).toBe(118)
  })
  it('nothing reported: undefined', () => {
    expect(spentTokens(undefined)).toBeUndefined()
    expect(spentTokens({duration_ms: 5})).toBeUndefined()
  })
})

describe('usageLine: a template or shell agent\'s `USAGE:` line', () => {
  it('the last one counts: tokens, or input and output, and dollars', () => {
    expect(usageLine('work\nUSAGE: tokens=1500 usd=0.02\nRESULT: SUCCESS')).toEqual({usage: {tokens: 1500}, costUsd: 0.02})
    expect(usageLine('USAGE: tokens=1\nUSAGE: input: 1,200, output: 300, cost: $0.5')).toEqual({usage: {input: 1200, output: 300}, costUsd: 0.5})
    expect(spentTokens(usageLine('USAGE: input=1200 output=300')!.usage)).toBe(1500)
    expect(usageLine('no usage here')).toBeUndefined()
    expect(usageLine('USAGE: nothing known')).toBeUndefined()
  })
})

describe('spend in the plan: the scorecard and status add up the Notes', () => {
  const text = [
    '# Parallel Plan: spend',
    '',
    '## Agents',
    '',
    '### A: a',
    '- **prompt**: a',
    '',
    '### B: b',
    '- **prompt**: b',
    '',
    '## Execution State',
    '',
    '| Agent | Status | Agent ID | Duration | Notes |',
    '|---|---|---|---|---|',
    '| A | completed | x | 1m | cost: $0.1000; tokens: 1200 |',
    '| B | failed | y | 2m | attempt 1: no; tokens: 300 |',
    ''
  ].join('\n')
  const plan = parsePlan(text, 'plan.md')

  it('per agent and per plan', () => {
    const scorecard = computeScorecard(plan, tableStateFromPlan(plan), {})
    expect(scorecard.tokens).toBe(1500)
    expect(scorecard.costUsd).toBe(0.1)
    expect(scorecard.agents.map((agent) => agent.tokens)).toEqual([1200, 300])
    const status = planStatus(plan)
    expect(status.spent).toEqual({tokens: 1500, usd: 0.1})
    expect(formatStatus(status)).toContain('Spent:         1,500 tokens, $0.10')
  })

  it('per runner, when the run knows each agent\'s runner', () => {
    const scorecard = computeScorecard(plan, tableStateFromPlan(plan), {runnerOf: (id) => (id === 'A' ? 'claude' : 'codex')})
    expect(scorecard.spentByRunner).toEqual({claude: {tokens: 1200, usd: 0.1}, codex: {tokens: 300}})
    expect(formatScorecard(scorecard)).toMatch(/By runner +claude 1,200 tokens, \$0\.10; codex 300 tokens/)
  })
})
