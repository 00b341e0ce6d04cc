import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {journalFile} from '../../../src/store/journal-file.js'

let repo: TempRepo | undefined
beforeAll(isolateGitConfig)
afterEach(async () => {
  await repo?.cleanup()
  repo = undefined
})

describe('a table a hand edit damages during a run', () => {
  it('stops launching with a one-line repair hint, never adds a second table, and goes on once repaired', async () => {
    repo = await tempRepo({
      'plan.md': shellPlan(
        {
          A: {script: 'echo A >> launches.log\nwhile [ ! -f go ]; do sleep 0.05; done'},
          B: {deps: ['A'], script: 'echo B >> launches.log'}
        },
        {frontMatter: 'concurrency: 1'}
      )
    })
    const plan = join(repo.root, 'plan.md')
    const launches = (): string => (existsSync(join(repo!.root, 'launches.log')) ? readFileSync(join(repo!.root, 'launches.log'), 'utf8') : '')
    const run = startCli(['run', 'plan.md', '--json'], {cwd: repo.root})
    let output = ''
    run.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    await waitForTable(plan, (rows) => rows.A?.status === 'in_progress')
    const delimiter = '|-------|--------|----------|----------|-------|\n'
    const good = readFileSync(plan, 'utf8')
    writeFileSync(plan, good.replace(delimiter, ''))
    writeFileSync(join(repo.root, 'go'), '')
    // A finishes while the table is damaged: nothing is written, B does not launch.
    // The row says in_progress before A's process starts: wait for A itself (its log line), up to 15 s.
    for (let waited = 0; !launches().includes('A'); waited += 50) {
      if (waited > 15_000) throw new Error('A never started')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    // Until the run has taken A's end, with the table damaged (up to 20 s: a fixed 1.5 s raced A's end on a loaded
    // machine, and the repair below then came first), then a moment for a wrong launch of B to show.
    for (let waited = 0; !/"type":"completed","agent":"A"/.test(output); waited += 50) {
      if (waited > 20_000) throw new Error(`the run never took A's end; it printed:\n${output}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    await new Promise((resolve) => setTimeout(resolve, 500))
    const damaged = readFileSync(plan, 'utf8')
    expect(damaged.match(/## Execution State/g)).toHaveLength(1)
    expect(launches()).toBe('A\n')
    // The person repairs it: the run records A and launches B.
    writeFileSync(plan, damaged.replace('| Agent | Status | Agent ID | Duration | Notes |\n', `| Agent | Status | Agent ID | Duration | Notes |\n${delimiter}`))
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    expect(result.stdout).toMatch(/"type":"warning","message":"cannot write .*plan\.md:\d+:\d+: .*delimiter row.*\[damaged-state-table\]; no new agents will launch until it is repaired"/)
    expect(launches()).toBe('A\nB\n')
    const {rows, text} = await readTable(plan)
    expect(rows.A!.status).toBe('completed')
    expect(rows.B!.status).toBe('completed')
    expect(text.match(/## Execution State/g)).toHaveLength(1)
    expect((await runCli(['validate', 'plan.md'], {cwd: repo.root})).exitCode).toBe(0)
  }, 60_000)
})

describe('a checkout that takes the whole section away mid-run', () => {
  it('`git checkout plan.md` of a plan committed before its first run: what the run had recorded goes to the journal too, and the rerun runs no agent again', async () => {
    repo = await tempRepo()
    const log = join(repo.root, '..', `${repo.root.split('/').pop()}-agents.log`)
    const go = join(repo.root, 'go')
    await repo.commit('plan', {
      'plan.md': shellPlan({A: {script: logged(log, 'true')}, B: {script: logged(log, `while [ ! -f '${go}' ]; do sleep 0.05; done`)}}, {table: false})
    })
    const plan = join(repo.root, 'plan.md')
    const run = startCli(['run', 'plan.md', '--json'], {cwd: repo.root})
    await waitForTable(plan, (rows) => rows.A?.status === 'completed' && rows.B?.status === 'in_progress')
    // The plan as committed: no Execution State section at all. A's completion was only in the file.
    await repo.git('checkout', 'plan.md')
    writeFileSync(go, '')
    const journal = journalFile(plan)
    for (let waited = 0; !(existsSync(journal) && readFileSync(journal, 'utf8').includes('"B"')); waited += 50) {
      if (waited > 20_000) throw new Error('B never reached the journal')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    // Closed laptop: nothing more from this run.
    run.kill('SIGKILL')
    await run
    expect(readFileSync(plan, 'utf8')).not.toMatch(/## Execution State/)
    const again = await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(again.exitCode, again.all).toBe(0)
    const {rows} = await readTable(plan)
    expect(rows.A!.status).toBe('completed')
    expect(rows.B!.status).toBe('completed')
    // Counted from the agents' side: A once, B once, across both runs.
    const side = await readAgentLog(log)
    expect([...side.starts.entries()].sort()).toEqual([['A#1', 1], ['B#1', 1]])
  }, 60_000)
})
