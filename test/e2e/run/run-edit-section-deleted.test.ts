import {readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'
import {liveEvents} from '../../helpers/live-events.js'

/**
 * A person deletes a running agent's whole `### B:` section (and its row) mid-run, saved with temp +
 * rename as editors do. B was launched: it finishes as launched, its work is taken in as any agent's
 * (committed with `commit: true`, merged from its worktree), and it is never launched again.
 */
let repo: TempRepo | undefined
beforeAll(isolateGitConfig)
afterEach(async () => {
  await repo?.cleanup()
  repo = undefined
})

describe("a running agent's section deleted mid-run", () => {
  for (const [how, frontMatter] of [
    ['commit: true', 'commit: true'],
    ['worktree isolation', 'isolation: worktree']
  ] as const) {
    it(`${how}: it finishes, its work is taken in, no internal error, and it does not run again`, async () => {
      repo = await tempRepo({'README.md': '# test\n'})
      const log = join(repo.root, '..', `${repo.root.split('/').pop()}-agents.log`)
      const go = join(repo.root, '..', `${repo.root.split('/').pop()}-go`)
      const wait = `while [ ! -f '${go}' ]; do sleep 0.05; done`
      const plan = join(repo.root, 'plan.md')
      await repo.commit('plan', {
        'plan.md': shellPlan(
          {A: {creates: ['a.txt'], script: logged(log, `${wait}; echo a > a.txt`)}, B: {creates: ['b.txt'], script: logged(log, `${wait}; echo b > b.txt`)}},
          {frontMatter}
        )
      })
      const run = startCli(['run', 'plan.md', '--json'], {cwd: repo.root})
      await waitForTable(plan, (rows) => rows.A?.status === 'in_progress' && rows.B?.status === 'in_progress')
      for (let waited = 0; (await readAgentLog(log)).starts.size < 2; waited += 50) {
        if (waited > 15_000) throw new Error('A and B never both started')
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      const text = readFileSync(plan, 'utf8')
      const edited = text.slice(0, text.indexOf('### B:')) + text.slice(text.indexOf('## Execution State')).replace(/\n\| B \|[^\n]*/, '')
      writeFileSync(`${plan}.swp`, edited)
      renameSync(`${plan}.swp`, plan)
      // The run sees the save before the agents end.
      await waitForTable(plan, (rows) => rows.B !== undefined)
      writeFileSync(go, '')
      const result = await run
      expect(result.exitCode, result.all).toBe(0)
      expect(result.all).not.toMatch(/could not check the work|Cannot read properties/)
      expect(result.stdout).toMatch(/B was running: it finishes as launched/)
      // B's work is on main, in a commit of its own (or its merge).
      expect(await repo.git('show', 'HEAD:b.txt')).toBe('b')
      expect(await repo.git('status', '--porcelain', '--', 'b.txt')).toBe('')
      expect((await readTable(plan)).rows.B!.status).toBe('completed')
      const side = await readAgentLog(log)
      expect([...side.starts.entries()].sort()).toEqual([['A#1', 1], ['B#1', 1]])
    }, 60_000)
  }

  it("a pending agent's section deleted while another depends on it: the invalid edit is reported at its line and column, as validate says", async () => {
    repo = await tempRepo({'README.md': '# test\n'})
    const go = join(repo.root, '..', `${repo.root.split('/').pop()}-go`)
    const plan = join(repo.root, 'plan.md')
    await repo.commit('plan', {
      'plan.md': shellPlan({A: {script: `while [ ! -f '${go}' ]; do sleep 0.05; done`}, B: {deps: ['A'], script: 'true'}, C: {deps: ['B'], script: 'true'}})
    })
    const run = startCli(['run', 'plan.md', '--json'], {cwd: repo.root})
    const events = liveEvents(run)
    await waitForTable(plan, (rows) => rows.A?.status === 'in_progress' && /base: /.test(rows.A.notes))
    const said = events.until((e) => e.type === 'warning' && /edited into an invalid one/.test(e.message ?? ''), 'the invalid-edit warning')
    const text = readFileSync(plan, 'utf8')
    writeFileSync(`${plan}.swp`, text.slice(0, text.indexOf('### B:')) + text.slice(text.indexOf('### C:')))
    renameSync(`${plan}.swp`, plan)
    const validate = await runCli(['validate', 'plan.md'], {cwd: repo.root})
    const place = /plan\.md:(\d+:\d+)/.exec(validate.stderr + validate.stdout)![1]!
    const warned = await said
    writeFileSync(go, '')
    await run
    expect(warned.message).toContain(`the plan was edited into an invalid one (${plan}:${place}: unknown dependency`)
  }, 60_000)
})
