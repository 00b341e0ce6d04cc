import {readFileSync, writeFileSync} from 'node:fs'
import {mkdtemp} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {registerAnswer} from '../../../src/cli/commands/answer.js'
import {registerStatus} from '../../../src/cli/commands/status.js'
import {registerReport} from '../../../src/cli/commands/report.js'
import {readRunFlags} from '../../../src/cli/run-flags.js'
import type {Io} from '../../../src/cli/io.js'
import {runCommand} from '../../helpers/plan-cli-harness.js'

/** A plan whose three agents spent 16.2M tokens and $41 of a 20M, $50 budget, in a folder of its own. */
async function planDir(front = 'budget: {tokens: 20M, usd: 50}   # the team\'s'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mdplan-budget-'))
  const text = [
    '---',
    'runner: shell',
    front,
    '---',
    '',
    '# Parallel Plan: budgets',
    '',
    '## Agents',
    '',
    ...['A', 'B', 'C'].flatMap((id) => [`### ${id}: work`, '- **depends_on**: []', '- **prompt**: |', `    echo ${id}`, '']),
    '## Execution State',
    '',
    '| Agent | Status | Agent ID | Duration | Notes |',
    '|-------|--------|----------|----------|-------|',
    '| A | completed | sh-1 | 3s | tokens: 8000000; cost: $20.0000 |',
    '| B | completed | sh-2 | 3s | tokens: 8200000; cost: $21.0000 |',
    '| C | pending | — | — | |',
    '',
    'Started: 2026-11-28T09:00:00Z',
    'Last updated: 2026-11-28T09:10:00Z',
    'Build: not yet run',
    'budget: 16.2M of 20M tokens (81 %), $41.00 of $50 (82 %)',
    ''
  ].join('\n')
  writeFileSync(join(dir, 'plan.md'), text)
  return dir
}

describe('mdplan answer --budget', () => {
  it("sets the front matter's budget through the store, changing only those bytes", async () => {
    const dir = await planDir()
    const before = readFileSync(join(dir, 'plan.md'), 'utf8')
    const result = await runCommand(registerAnswer, ['answer', 'plan.md', '--budget', '30M'], dir)
    expect(result.all).toBe('plan.md: budget 30M tokens, $50 (was 20M tokens, $50); the next `mdplan run plan.md` goes on with it.\n')
    expect(result.code).toBe(0)
    expect(readFileSync(join(dir, 'plan.md'), 'utf8')).toBe(before.replace('{tokens: 20M,', '{tokens: 30M,'))
    await runCommand(registerAnswer, ['answer', 'plan.md', '--budget', 'usd=80'], dir)
    expect(readFileSync(join(dir, 'plan.md'), 'utf8')).toBe(before.replace('{tokens: 20M, usd: 50}', '{tokens: 30M, usd: 80}'))
  })

  it('refuses a budget that reads as none, or an answer and a budget at once, writing nothing', async () => {
    const dir = await planDir()
    const before = readFileSync(join(dir, 'plan.md'), 'utf8')
    const bad = await runCommand(registerAnswer, ['answer', 'plan.md', '--budget', 'plenty'], dir)
    expect(bad.code).toBe(2)
    expect(bad.stderr).toBe('mdplan answer: --budget must be a budget such as `tokens=30M,usd=60` (either or both; tokens like `20M`, `1.5k` or `20000000`, usd a number), not `plenty`; got "plenty"\n')
    const both = await runCommand(registerAnswer, ['answer', 'plan.md', 'A', 'yes', '--budget', '30M'], dir)
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('give either an answer')
    expect((await runCommand(registerAnswer, ['answer', 'plan.md'], dir)).code).toBe(2)
    expect(readFileSync(join(dir, 'plan.md'), 'utf8')).toBe(before)
  })

  it('refuses a front matter that does not parse, naming where, and writes nothing', async () => {
    const dir = await planDir('budget: {tokens: 20M')
    const before = readFileSync(join(dir, 'plan.md'), 'utf8')
    const result = await runCommand(registerAnswer, ['answer', 'plan.md', '--budget', '30M'], dir)
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/^plan\.md:\d+:\d+: invalid YAML front matter: .*\[invalid-front-matter\]\nmdplan answer: nothing was written\.\n$/)
    expect(readFileSync(join(dir, 'plan.md'), 'utf8')).toBe(before)
  })
})

describe('spend against the budget in status and report', () => {
  it('status says the budget and what was spent of it; the line under the table is not one of the plan\'s own Key: value lines', async () => {
    const dir = await planDir()
    const status = await runCommand(registerStatus, ['status', 'plan.md'], dir)
    expect(status.stdout).toContain('Spent:         16,200,000 tokens, $41.00\nBudget:        16.2M of 20M tokens (81 %), $41.00 of $50 (82 %)\n')
    expect(status.stdout.match(/^budget\b.*:/gim)).toHaveLength(1)
    const json = JSON.parse((await runCommand(registerStatus, ['status', 'plan.md', '--json'], dir)).stdout)
    expect(json.budget).toEqual({tokens: 20_000_000, usd: 50, summary: '16.2M of 20M tokens (81 %), $41.00 of $50 (82 %)', reached: false})
    expect(json.meta.budget).toBeUndefined()
  })

  it('status and report say when it is reached', async () => {
    const dir = await planDir('budget: 16M')
    const status = await runCommand(registerStatus, ['status', 'plan.md'], dir)
    expect(status.stdout).toContain('Budget:        16.2M of 16M tokens (101 %), reached: raise `budget` to go on\n')
    const report = await runCommand(registerReport, ['report', 'plan.md'], dir)
    expect(report.stdout).toMatch(/\nBudget +16\.2M of 16M tokens \(101 %\), reached\n/)
    expect(JSON.parse((await runCommand(registerReport, ['report', 'plan.md', '--json'], dir)).stdout).budget).toEqual({tokens: 16_000_000})
  })
})

describe('mdplan run --budget', () => {
  const io = (): Io & {err: string} => {
    const out = {err: '', stdout: () => {}, stderr: (text: string) => (out.err += text), isTTY: false, env: {}, cwd: tmpdir()}
    return out
  }

  it('reads tokens=20M,usd=50 (or a bare count), and names what is wrong with anything else', () => {
    expect(readRunFlags({budget: 'tokens=20M,usd=50'}, io())).toMatchObject({budget: {tokens: 20_000_000, usd: 50}})
    expect(readRunFlags({budget: '1.5k'}, io())).toMatchObject({budget: {tokens: 1_500}})
    const bad = io()
    expect(readRunFlags({budget: 'tokens=many'}, bad)).toBe(2)
    expect(bad.err).toBe('mdplan run: --budget must be a budget such as `tokens=20M,usd=50` (either or both; tokens like `20M`, `1.5k` or `20000000`, usd a number): `tokens` is `many`, not a count of tokens; got "tokens=many"\n')
  })
})
