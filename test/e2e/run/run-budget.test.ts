import {mkdtemp} from 'node:fs/promises'
import {readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'

/**
 * Budgets (docs/limits.md, "Budgets"), through the real CLI in a real git repository: shell agents that say
 * what they spent on a `USAGE:` line, counted from their own log. A budget reached after three of six agents
 * stops the run there (exit 5, the line under the table); `mdplan answer --budget` raises it, and the rerun
 * runs the rest once each and none of the first three again; a SIGKILL in between changes none of that.
 */
let repo: TempRepo | undefined
beforeAll(isolateGitConfig)
afterEach(async () => {
  await repo?.cleanup()
  repo = undefined
})

const ids = ['A', 'B', 'C', 'D', 'E', 'F']

/** Six independent agents, one at a time, each spending 1,000 tokens (after `pause` seconds of work). */
async function budgetRepo(front: string, pause = 0): Promise<{plan: string; log: string}> {
  const log = join(await mkdtemp(join(tmpdir(), 'mdplan-budget-log-')), 'agents.log')
  const script = logged(log, `${pause > 0 ? `sleep ${pause}\n` : ''}echo "USAGE: tokens=1000"\necho "RESULT: SUCCESS"`)
  repo = await tempRepo({'plan.md': shellPlan(Object.fromEntries(ids.map((id) => [id, {script}])), {frontMatter: `concurrency: 1\n${front}`})})
  return {plan: join(repo.root, 'plan.md'), log}
}

/** The agents that started, in order, from their own log. */
async function started(log: string): Promise<string[]> {
  return (await readAgentLog(log)).lines.filter((line) => line.startsWith('start ')).map((line) => line.split(' ')[1]!)
}

describe('a budget that pauses and asks', () => {
  it('stops after the agents that spent it (exit 5, the line in the plan); raised with `mdplan answer --budget`, the rerun runs the rest once each', async () => {
    const {plan, log} = await budgetRepo('budget: {tokens: 3k}\nbudget_warn: 0.6')
    const first = await runCli(['run', 'plan.md'], {cwd: repo!.root})
    expect(first.exitCode, first.all).toBe(5)
    expect(await started(log)).toEqual(['A', 'B', 'C'])
    // Said once at the warning share (2,000 of 3,000) and once at 100 %.
    expect(first.all).toMatch(/ budget: 2k of 3k tokens \(66 %\)\n/)
    expect(first.all).toMatch(/ budget reached: 3k of 3k tokens\n/)
    expect(first.all).toContain('budget reached: 3k of 3k tokens: nothing more was launched; raise `budget`')
    let table = await readTable(plan)
    expect(table.text).toMatch(/\nBuild: not yet run\nbudget reached: 3k of 3k tokens\n$/)
    expect(ids.map((id) => table.rows[id]!.status)).toEqual(['completed', 'completed', 'completed', 'pending', 'pending', 'pending'])
    const status = await runCli(['status', 'plan.md'], {cwd: repo!.root})
    expect(status.stdout).toContain('Budget:        3k of 3k tokens (100 %), reached: raise `budget` to go on')

    // Running again as it is launches nothing and says so the same way.
    const again = await runCli(['run', 'plan.md'], {cwd: repo!.root})
    expect(again.exitCode, again.all).toBe(5)
    expect(await started(log)).toEqual(['A', 'B', 'C'])

    const before = readFileSync(plan, 'utf8')
    const answer = await runCli(['answer', 'plan.md', '--budget', '10k'], {cwd: repo!.root})
    expect(answer.exitCode, answer.all).toBe(0)
    // Only the budget's bytes changed.
    expect(readFileSync(plan, 'utf8')).toBe(before.replace('budget: {tokens: 3k}', 'budget: {tokens: 10k}'))

    const raised = await runCli(['run', 'plan.md'], {cwd: repo!.root})
    expect(raised.exitCode, raised.all).toBe(0)
    expect(await started(log)).toEqual(['A', 'B', 'C', 'D', 'E', 'F'])
    table = await readTable(plan)
    expect(ids.every((id) => table.rows[id]!.status === 'completed')).toBe(true)
    // 6,000 of 10,000: no longer reached, so that line went; at the warning share (0.6), the line says so.
    expect(table.text).not.toContain('budget reached')
    expect(table.text).toMatch(/\nBuild: not yet run\nbudget: 6k of 10k tokens \(60 %\)\n$/)
    const report = await runCli(['report', 'plan.md'], {cwd: repo!.root})
    expect(report.stdout).toMatch(/\nBudget +6k of 10k tokens \(60 %\)\n/)
  }, 120_000)

  it('after a SIGKILL mid-run, the rerun honours the budget from the rows on disk, and a raised one goes on without running anything twice', async () => {
    const {plan, log} = await budgetRepo('budget: {tokens: 3k}', 1)
    const first = startCli(['run', 'plan.md'], {cwd: repo!.root})
    // C runs: its job goes on without the run that started it.
    await waitForTable(plan, (rows) => rows.C?.status === 'in_progress', 30_000)
    first.kill('SIGKILL')
    await first
    const rerun = await runCli(['run', 'plan.md'], {cwd: repo!.root})
    expect(rerun.exitCode, rerun.all).toBe(5)
    // C was collected (or re-attached to), not started again; nothing after it.
    expect(await started(log)).toEqual(['A', 'B', 'C'])
    expect((await readTable(plan)).text).toContain('\nbudget reached: 3k of 3k tokens\n')

    await runCli(['answer', 'plan.md', '--budget', 'tokens=10k'], {cwd: repo!.root})
    const raised = await runCli(['run', 'plan.md'], {cwd: repo!.root})
    expect(raised.exitCode, raised.all).toBe(0)
    const side = await readAgentLog(log)
    expect(await started(log)).toEqual(['A', 'B', 'C', 'D', 'E', 'F'])
    expect(side.unfinished).toEqual([])
  }, 120_000)

  it("an agent's own budget stops it where it says its spend, marked, with no attempt used and no retry", async () => {
    const log = join(await mkdtemp(join(tmpdir(), 'mdplan-budget-log-')), 'agents.log')
    // B says it spent 600 tokens, then works on; its own budget is 500: it is stopped there, before its `end`.
    const slow = logged(log, 'echo "USAGE: tokens=600"\nsleep 30\necho "RESULT: SUCCESS"')
    const quick = logged(log, 'echo "USAGE: tokens=100"\necho "RESULT: SUCCESS"')
    const text = shellPlan({A: {script: quick}, B: {script: slow}}).replace('### B: b-step\n', '### B: b-step\n- **budget**: {tokens: 500}\n')
    repo = await tempRepo({'plan.md': text})
    const plan = join(repo.root, 'plan.md')
    const result = await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(result.exitCode, result.all).toBe(1)
    const side = await readAgentLog(log)
    expect(side.unfinished).toEqual(['B#1'])
    const table = await readTable(plan)
    expect(table.rows.B!.status).toBe('failed')
    expect(table.rows.B!.notes).toMatch(/tokens: 600; budget reached: 600 of 500 tokens/)
    // No attempt used; not tried again.
    expect(table.rows.B!.notes).not.toMatch(/attempt \d+:/)
    expect(side.starts.get('B#1')).toBe(1)
    expect(side.starts.size).toBe(2)
  }, 60_000)

  it('with on_budget: stop, the running agents are ended as Ctrl-C ends them, resumable, and a raised budget goes on', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-budget-once-'))
    const log = join(dir, 'agents.log')
    // The first time each works on after saying 600 tokens (and is ended); the second time it is quick.
    const script = logged(log, `if [ -e "${dir}/$MDPLAN_AGENT.once" ]; then echo "USAGE: tokens=100"; else touch "${dir}/$MDPLAN_AGENT.once"; echo "USAGE: tokens=600"; sleep 30; fi\necho "RESULT: SUCCESS"`)
    repo = await tempRepo({'plan.md': shellPlan({A: {script}, B: {script}}, {frontMatter: 'concurrency: 2\nbudget: {tokens: 1000}\non_budget: stop'})})
    const plan = join(repo.root, 'plan.md')
    const first = await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(first.exitCode, first.all).toBe(5)
    expect(first.all).toContain('the running agents are ended (on_budget: stop), resumable')
    expect((await readAgentLog(log)).unfinished.sort()).toEqual(['A#1', 'B#1'])
    let table = await readTable(plan)
    for (const id of ['A', 'B']) {
      expect(table.rows[id]!.status).toBe('in_progress')
      expect(table.rows[id]!.notes).toContain('tokens: 600')
      expect(table.rows[id]!.notes).not.toMatch(/attempt \d+:/)
    }
    expect(table.text).toContain('\nbudget reached: 1.2k of 1k tokens\n')

    await runCli(['answer', 'plan.md', '--budget', '5k'], {cwd: repo.root})
    const raised = await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(raised.exitCode, raised.all).toBe(0)
    table = await readTable(plan)
    for (const id of ['A', 'B']) {
      expect(table.rows[id]!.status).toBe('completed')
      expect(table.rows[id]!.notes).toContain('tokens: 700')
      expect(table.rows[id]!.notes).not.toMatch(/attempt \d+:/)
    }
    // Each started once in each run.
    expect((await readAgentLog(log)).lines.filter((line) => line.startsWith('start ')).map((line) => line.split(' ')[1]).sort()).toEqual(['A', 'A', 'B', 'B'])
  }, 90_000)
})
