import {readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'

/**
 * A closed laptop (the run SIGKILLed), then the person's editor saves a buffer it loaded in the middle of
 * that run, while no run is live: with only the title changed, or with a note typed into a row. The next
 * run must not take that old table as instructions: A, completed before the kill, does not run again.
 */
let repo: TempRepo | undefined
beforeAll(isolateGitConfig)
afterEach(async () => {
  await repo?.cleanup()
  repo = undefined
})

describe('an editor buffer from the middle of a killed run, saved before the next run', () => {
  for (const mode of ['title changed', 'note typed into a row'] as const) {
    it(`${mode}: the next run starts from the table the killed run left, says so, and runs A no more`, async () => {
      repo = await tempRepo({'README.md': '# test\n'})
      const log = join(repo.root, '..', `${repo.root.split('/').pop()}-agents.log`)
      const go = join(repo.root, '..', `${repo.root.split('/').pop()}-go`)
      const plan = join(repo.root, 'plan.md')
      const wait = `while [ ! -f '${go}' ]; do sleep 0.05; done`
      await repo.commit('plan', {
        // A lasts over a second: the buffer's `Last updated:` (stamped to the second) is older than the killed run's last.
        'plan.md': shellPlan({A: {script: logged(log, 'sleep 1.2')}, B: {script: logged(log, wait)}, C: {deps: ['A'], script: logged(log, wait)}})
      })
      const first = startCli(['run', 'plan.md'], {cwd: repo.root})
      await waitForTable(plan, (rows) => rows.A?.status === 'in_progress')
      const buffer = readFileSync(plan, 'utf8')
      await waitForTable(plan, (rows) => rows.A?.status === 'completed' && rows.C?.status === 'in_progress')
      first.kill('SIGKILL')
      await first
      const saved = mode === 'title changed' ? buffer.replace('# Parallel Plan: test', '# Parallel Plan: test (renamed)') : buffer.replace(/^\| C \| pending \| — \| — \| \|$/m, '| C | pending | — | — | TODO ask Bob |')
      expect(saved).not.toBe(buffer)
      writeFileSync(`${plan}.swp`, saved)
      renameSync(`${plan}.swp`, plan)
      writeFileSync(go, '')
      const again = await runCli(['run', 'plan.md'], {cwd: repo.root})
      expect(again.exitCode, again.all).toBe(0)
      expect(again.all).toMatch(/the Execution State table at this run's start is one an earlier run wrote while it ran .*keeps mdplan's rows for A, C/)
      const side = await readAgentLog(log)
      expect(side.starts.get('A#1')).toBe(1)
      expect([...side.starts.keys()].filter((key) => key.startsWith('A'))).toEqual(['A#1'])
      const {rows, text} = await readTable(plan)
      expect([rows.A!.status, rows.B!.status, rows.C!.status]).toEqual(['completed', 'completed', 'completed'])
      if (mode === 'title changed') expect(text).toContain('# Parallel Plan: test (renamed)')
      else expect(rows.C!.notes).toContain('TODO ask Bob')
    }, 60_000)
  }

  it("a buffer loaded before the killed run started (that run's starting table), saved with a new title: the next run keeps what the killed run did", async () => {
    repo = await tempRepo({'README.md': '# test\n'})
    const log = join(repo.root, '..', `${repo.root.split('/').pop()}-agents.log`)
    const go = join(repo.root, '..', `${repo.root.split('/').pop()}-go`)
    const plan = join(repo.root, 'plan.md')
    await repo.commit('plan', {'plan.md': shellPlan({A: {script: logged(log, 'sleep 1.2')}, B: {script: logged(log, `while [ ! -f '${go}' ]; do sleep 0.05; done`)}})})
    // Run 1, killed at once: run 2 starts from the table it left, which the editor loads.
    const first = startCli(['run', 'plan.md'], {cwd: repo.root})
    await waitForTable(plan, (rows) => rows.A?.status === 'in_progress' && rows.B?.status === 'in_progress')
    first.kill('SIGKILL')
    await first
    const buffer = readFileSync(plan, 'utf8')
    const second = startCli(['run', 'plan.md'], {cwd: repo.root})
    await waitForTable(plan, (rows) => rows.A?.status === 'completed')
    second.kill('SIGKILL')
    await second
    const before = (await readAgentLog(log)).lines.length
    writeFileSync(`${plan}.swp`, buffer.replace('# Parallel Plan: test', '# Parallel Plan: test (renamed)'))
    renameSync(`${plan}.swp`, plan)
    writeFileSync(go, '')
    const third = await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(third.exitCode, third.all).toBe(0)
    expect(third.all).toMatch(/keeps mdplan's rows for A\b/)
    // A completed in run 2: run 3 does not start it again (B, ended with the killed run, is relaunched).
    const after = await readAgentLog(log, before)
    expect([...after.starts.keys()].filter((key) => key.startsWith('A'))).toEqual([])
    expect((await readTable(plan)).rows.A!.status).toBe('completed')
  }, 60_000)

  it('`git checkout plan.md` between runs (the committed plan): a reset, taken as found, every agent runs again', async () => {
    repo = await tempRepo({'README.md': '# test\n'})
    const log = join(repo.root, '..', `${repo.root.split('/').pop()}-agents.log`)
    await repo.commit('plan', {'plan.md': shellPlan({A: {script: logged(log, 'true')}, B: {deps: ['A'], script: logged(log, 'true')}})})
    expect((await runCli(['run', 'plan.md'], {cwd: repo.root})).exitCode).toBe(0)
    await repo.git('checkout', '--', 'plan.md')
    const again = await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(again.exitCode, again.all).toBe(0)
    expect(again.all).not.toMatch(/an earlier run wrote while it ran/)
    expect((await readAgentLog(log)).starts).toEqual(new Map([['A#1', 1], ['B#1', 1], ['A#2', 1], ['B#2', 1]]))
  }, 60_000)
})
