import {mkdtemp, readFile, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {runCli, shellPlan} from '../../helpers/run-cli.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'

/**
 * Spend in the table's own `Tokens` and `Cost` columns (docs/limits.md, "Spend"), through the real CLI in a
 * real git repository: shell agents say what they spent on a `USAGE:` line; the figures land in those
 * cells and not in the Notes, `status --json` adds up the same totals, and a budget reads them there (a
 * person's edit of a cell included). Launches are counted from the agents' own log.
 */
let repo: TempRepo | undefined
beforeAll(isolateGitConfig)
afterEach(async () => {
  await repo?.cleanup()
  repo = undefined
})

const header = '| Agent | Status | Agent ID | Duration | Tokens | Cost | Notes |\n|-------|--------|----------|----------|-------:|-----:|-------|'

/** A shell plan whose table has the spend columns, with the given rows (`| A | pending | — | — | | | |`). */
function spendPlan(agents: Parameters<typeof shellPlan>[0], rows: Record<string, string>, front = 'concurrency: 1'): string {
  const text = shellPlan(agents, {frontMatter: front})
  const table = Object.keys(agents).map((id) => rows[id] ?? `| ${id} | pending | — | — | | | |`)
  return text.replace(/\| Agent \| Status[^]*?\n\n/, `${header}\n${table.join('\n')}\n\n`)
}

/** Each row's cells by column, as the file has them. */
async function cells(plan: string): Promise<Record<string, Record<string, string>>> {
  const table = parsePlan(await readFile(plan, 'utf8'), plan).state!.table!
  const rows: Record<string, Record<string, string>> = {}
  for (const row of table.rows) rows[row.agent] = Object.fromEntries(table.columns.map((column, i) => [column, row.cells[i]!.value]))
  return rows
}

async function started(log: string): Promise<string[]> {
  return (await readAgentLog(log)).lines.filter((line) => line.startsWith('start ')).map((line) => line.split(' ')[1]!)
}

async function logFile(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), 'mdplan-spend-log-')), 'agents.log')
}

describe('spend in the Tokens and Cost columns', () => {
  it('the agents’ figures go into the cells, not the Notes, and `status --json` reports the same totals', async () => {
    const log = await logFile()
    const script = logged(log, 'echo "USAGE: tokens=1500 usd=0.02"\necho "RESULT: SUCCESS"')
    repo = await tempRepo({'plan.md': spendPlan({A: {script}, B: {script, deps: ['A']}}, {})})
    const plan = join(repo.root, 'plan.md')
    const result = await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(result.exitCode, result.all).toBe(0)
    expect(await started(log)).toEqual(['A', 'B'])
    const rows = await cells(plan)
    for (const id of ['A', 'B']) {
      expect(rows[id]).toMatchObject({Status: 'completed', Tokens: '1,500', Cost: '$0.0200'})
      expect(rows[id]!.Notes).not.toMatch(/tokens:|cost:/)
    }
    // The columns kept their alignment rows (right-aligned), and the file validates without a warning.
    expect(await readFile(plan, 'utf8')).toContain(header.split('\n')[1])
    const status = await runCli(['status', 'plan.md', '--json'], {cwd: repo.root})
    expect(JSON.parse(status.stdout).spent).toEqual({tokens: 3000, usd: 0.04})
    // The scorecard of the run said the same.
    expect(result.all).toMatch(/Tokens +3,000/)
    const validate = await runCli(['validate', 'plan.md'], {cwd: repo.root})
    expect(validate.all).not.toContain('unreadable-spend')

    // A run with nothing to do leaves the file as it is, byte for byte.
    const before = await readFile(plan, 'utf8')
    const again = await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(again.exitCode, again.all).toBe(0)
    expect(await started(log)).toEqual(['A', 'B'])
    expect((await readFile(plan, 'utf8')).replace(/Last updated: .*/, '')).toBe(before.replace(/Last updated: .*/, ''))
  }, 120_000)

  it('a budget reads the spend from the column: a person’s figure stops the next agent, their edit of it lets one more run', async () => {
    const log = await logFile()
    const script = logged(log, 'echo "USAGE: tokens=1500 usd=0.02"\necho "RESULT: SUCCESS"')
    // A ran before (by hand, or in an earlier run): its 2,500 tokens are in its Tokens cell, none in its Notes.
    const text = spendPlan({A: {script}, B: {script}, C: {script}}, {A: '| A | completed | a1 | 1m | 2,500 | | done by hand |'}, 'concurrency: 1\nbudget: {tokens: 2000}')
    repo = await tempRepo({'plan.md': text})
    const plan = join(repo.root, 'plan.md')
    const first = await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(first.exitCode, first.all).toBe(5)
    expect(first.all).toContain('budget reached: 2.5k of 2k tokens')
    expect(await started(log)).toEqual([])

    // The person corrects A's figure: 500 spent. B runs (500 of 2,000), spends 1,500, and the budget is reached.
    const edited = (await readFile(plan, 'utf8')).replace('| 2,500 |', '| 500 |')
    await writeFile(plan, edited)
    const second = await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(second.exitCode, second.all).toBe(5)
    expect(await started(log)).toEqual(['B'])
    const rows = await cells(plan)
    expect(rows.A).toMatchObject({Status: 'completed', Tokens: '500', Notes: 'done by hand'})
    expect(rows.B).toMatchObject({Status: 'completed', Tokens: '1,500', Cost: '$0.0200'})
    expect(rows.C).toMatchObject({Status: 'pending', Tokens: ''})
    expect(await readFile(plan, 'utf8')).toContain('\nbudget reached: 2k of 2k tokens\n')
    const status = await runCli(['status', 'plan.md', '--json'], {cwd: repo.root})
    expect(JSON.parse(status.stdout).spent).toEqual({tokens: 2000, usd: 0.02})
  }, 120_000)
})
