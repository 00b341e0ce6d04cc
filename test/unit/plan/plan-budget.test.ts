import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {checkPlan} from '../../../src/plan/check-plan.js'
import {readBudget} from '../../../src/plan/read-budget.js'
import {agentBudget} from '../../../src/plan/agent-budget.js'
import {budgetUse} from '../../../src/plan/budget-use.js'
import {isBudgetLine, readBudgetLine} from '../../../src/plan/budget-line.js'
import {parseTokenCount} from '../../../src/util/parse-token-count.js'
import {formatTokenCount} from '../../../src/util/format-token-count.js'
import {formatDiagnostic} from '../../../src/cli/format-diagnostic.js'

const plan = (front: string[], agentFields: string[] = []): string =>
  ['---', ...front, '---', '', '# Parallel Plan: budgets', '', '## Agents', '', '### A: work', '- **depends_on**: []', ...agentFields, '- **prompt**: |', '    Do A.', ''].join('\n')

/** Every error of a plan, as `validate` prints it. */
const errors = (text: string): string[] =>
  checkPlan(parsePlan(text, 'plan.md'))
    .filter((d) => d.severity === 'error')
    .map((d) => formatDiagnostic(d))

describe('token counts and budgets as people write them', () => {
  it('reads `20M`, `1.5k`, `20000000`, `20_000_000`, `20,000,000` and `2B`, and nothing else', () => {
    expect(parseTokenCount('20M')).toBe(20_000_000)
    expect(parseTokenCount('1.5k')).toBe(1_500)
    expect(parseTokenCount('20000000')).toBe(20_000_000)
    expect(parseTokenCount(20_000_000)).toBe(20_000_000)
    expect(parseTokenCount('20_000_000')).toBe(20_000_000)
    expect(parseTokenCount('20,000,000')).toBe(20_000_000)
    expect(parseTokenCount('2B')).toBe(2_000_000_000)
    expect(parseTokenCount(' 3 m ')).toBe(3_000_000)
    for (const bad of ['', 'many', '-5', '0', '1,5k', '20MB', '5 tokens', 0, -1, NaN, true, null]) expect(parseTokenCount(bad), String(bad)).toBeUndefined()
  })

  it('shows a count in three figures, cut (a count short of a budget never reads as it)', () => {
    expect([950, 1_500, 16_249_999, 20_000_000, 19_999_999, 1_234_567_890].map(formatTokenCount)).toEqual(['950', '1.5k', '16.2M', '20M', '19.9M', '1.23B'])
  })

  it('reads a budget as a mapping, its text, key=value pairs, a bare count (tokens) or dollars', () => {
    expect(readBudget({tokens: '20M', usd: 50})).toEqual({budget: {tokens: 20_000_000, usd: 50}})
    expect(readBudget('{tokens: 20M, usd: 50}')).toEqual({budget: {tokens: 20_000_000, usd: 50}})
    expect(readBudget('tokens=20M,usd=50')).toEqual({budget: {tokens: 20_000_000, usd: 50}})
    expect(readBudget('usd=12.5')).toEqual({budget: {usd: 12.5}})
    expect(readBudget('20M')).toEqual({budget: {tokens: 20_000_000}})
    expect(readBudget(20_000_000)).toEqual({budget: {tokens: 20_000_000}})
    expect(readBudget('$50')).toEqual({budget: {usd: 50}})
    expect(readBudget({tokens: 'lots'})).toEqual({problem: expect.stringContaining('`tokens` is `lots`, not a count of tokens')})
    expect(readBudget({usd: -3})).toEqual({problem: expect.stringContaining('`usd` is `-3`, not a positive number')})
    expect(readBudget({hours: 3})).toEqual({problem: expect.stringContaining('unknown key `hours`')})
    expect(readBudget({})).toHaveProperty('problem')
    expect(readBudget(['20M'])).toHaveProperty('problem')
  })
})

describe('budgets in a plan', () => {
  it('front matter `budget`, `budget_warn` and `on_budget` are settings', () => {
    const parsed = parsePlan(plan(['budget: {tokens: 20M, usd: 50}', 'budget_warn: 90%', 'on_budget: stop']), 'plan.md')
    expect(parsed.settings).toMatchObject({budget: {tokens: 20_000_000, usd: 50}, budgetWarn: 0.9, onBudget: 'stop'})
    expect(parsePlan(plan(['budget:', '  tokens: 1.5k'], []), 'plan.md').settings.budget).toEqual({tokens: 1_500})
    expect(parsePlan(plan(['budget: 20000000']), 'plan.md').settings.budget).toEqual({tokens: 20_000_000})
    expect(errors(plan(['budget: {usd: 50}', 'budget_warn: 0.8']))).toEqual([])
  })

  it('a wrong budget is an error at its key, file:line:column, and every one is reported', () => {
    expect(errors(plan(['runner: shell', 'budget: {tokens: lots}', 'budget_warn: 2', 'on_budget: pause']))).toEqual([
      'plan.md:3:1: front matter `budget` must be a budget such as `{tokens: 20M, usd: 50}` (either or both; tokens like `20M`, `1.5k` or `20000000`, usd a number): `tokens` is `lots`, not a count of tokens [invalid-setting]',
      'plan.md:4:1: front matter `budget_warn` must be a share of the budget above 0 and at most 1, such as `0.8` or `80%` [invalid-setting]',
      'plan.md:5:1: front matter `on_budget` must be `finish` (let running agents finish) or `stop` (end them as Ctrl-C does) [invalid-setting]'
    ])
  })

  it("an agent's own `budget` field is read, and a wrong one is an error at the field", () => {
    const parsed = parsePlan(plan([], ['- **budget**: {tokens: 2M}']), 'plan.md')
    expect(agentBudget(parsed.agents[0])).toEqual({tokens: 2_000_000})
    expect(agentBudget(parsePlan(plan([], ['- **Budget**: usd=5']), 'plan.md').agents[0])).toEqual({usd: 5})
    expect(errors(plan([], ['- **budget**: plenty']))).toEqual([
      'plan.md:10:1: `budget` of agent A must be a budget such as `{tokens: 20M, usd: 50}` (either or both; tokens like `20M`, `1.5k` or `20000000`, usd a number), not `plenty` [invalid-budget]'
    ])
  })
})

describe('spend against a budget', () => {
  it('is under, at the warning share, or reached by any dimension it names; the line says so', () => {
    expect(budgetUse({tokens: 20_000_000}, {tokens: 10_000_000})).toEqual({level: 'under', line: '', summary: '10M of 20M tokens (50 %)'})
    expect(budgetUse({tokens: 20_000_000}, {tokens: 16_200_000})).toEqual({level: 'warn', line: 'budget: 16.2M of 20M tokens (81 %)', summary: '16.2M of 20M tokens (81 %)'})
    expect(budgetUse({tokens: 20_000_000}, {tokens: 16_200_000}, 0.9).level).toBe('under')
    expect(budgetUse({tokens: 20_000_000}, {tokens: 20_100_000}).line).toBe('budget reached: 20.1M of 20M tokens')
    // Both dimensions: reached when either is; the reached line names the one reached.
    const both = budgetUse({tokens: 20_000_000, usd: 50}, {tokens: 5_000_000, usd: 50.2})
    expect(both).toEqual({level: 'reached', line: 'budget reached: $50.20 of $50', summary: '5M of 20M tokens (25 %), $50.20 of $50 (100 %)'})
    expect(budgetUse({usd: 12.5}, {usd: 11}).line).toBe('budget: $11.00 of $12.50 (88 %)')
    // A dimension the budget does not name is not looked at.
    expect(budgetUse({usd: 50}, {tokens: 1e12, usd: 1}).level).toBe('under')
  })

  it("the line under the table is mdplan's by its form alone, outside code blocks", () => {
    for (const line of ['budget: 16.2M of 20M tokens (81 %)', 'budget reached: 20.1M of 20M tokens', 'budget reached: $50.20 of $50', 'budget: 5M of 20M tokens (25 %), $41.00 of $50 (82 %)']) {
      expect(isBudgetLine(line), line).toBe(true)
    }
    for (const line of ['Budget: approved by Bob', 'budget: 5 of 10 items', 'budget reached']) expect(isBudgetLine(line), line).toBe(false)
    expect(readBudgetLine(['Build: pass', '```', 'budget reached: 1M of 1M tokens', '```', 'budget: 900k of 1M tokens (90 %)'])).toBe('budget: 900k of 1M tokens (90 %)')
  })
})
