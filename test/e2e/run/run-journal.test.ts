import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {applyJournal} from '../../../src/store/apply-journal.js'
import type {JournalEntry} from '../../../src/store/journal-lines.js'
import {emptyRow, type RowState, type TableState} from '../../../src/store/table-state.js'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'
import {logged, readAgentLog, waitForFirstStart} from '../../helpers/agent-log.js'

/**
 * Nothing mdplan knows is lost: a completion the damaged table could not take
 * goes to the journal when the run must exit, and the next run applies it
 * before deciding anything. Real processes in a real git repository; launches
 * counted from the agents' side.
 */
let repo: TempRepo | undefined
beforeAll(isolateGitConfig)
afterEach(async () => {
  await repo?.cleanup()
  repo = undefined
})

const header = '| Agent | Status | Agent ID | Duration | Notes |\n'
const delimiter = '|-------|--------|----------|----------|-------|\n'

describe('the journal', () => {
  it('the table is damaged while the last agent runs; Ctrl-C after it completes; repaired, the next run does not relaunch it', async () => {
    repo = await tempRepo()
    const log = join(repo.root, 'agents.log')
    await repo.commit('plan', {'plan.md': shellPlan({A: {script: logged(log, 'while [ ! -f go ]; do sleep 0.05; done')}})})
    const plan = join(repo.root, 'plan.md')
    const run = startCli(['run', 'plan.md', '--json'], {cwd: repo.root})
    let out = ''
    const completed = new Promise<void>((resolve, reject) => {
      run.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        if (out.includes('"type":"completed"')) resolve()
      })
      void run.then((result) => reject(new Error(`the run ended before A completed: ${result.all}`)))
    })
    await waitForTable(plan, (rows) => rows.A?.status === 'in_progress')
    await waitForFirstStart(log)
    const damaged = readFileSync(plan, 'utf8').replace(delimiter, '')
    writeFileSync(plan, damaged)
    writeFileSync(join(repo.root, 'go'), '')
    // A completes; the run cannot record it and waits for the repair (it holds an unrecorded row).
    await completed
    run.kill('SIGINT')
    const result = await run
    expect(result.exitCode, result.all).toBe(130)
    expect(result.stdout).toMatch(/not recorded in the table: A completed; kept in [^"]*\.mdplan\/journal\/plan\.md\.jsonl, which the next run applies/)
    // The file is as the person left it: nothing a person wrote is changed.
    expect(readFileSync(plan, 'utf8')).toBe(damaged)
    const journal = join(repo.root, '.mdplan', 'journal', 'plan.md.jsonl')
    const entries = readFileSync(journal, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as JournalEntry)
    // A damaged table says nothing of A: the journal may first keep A as it runs (in_progress), and its last entry, which
    // the next run applies, is the completion.
    const kept = entries.map((entry) => [entry.plan, entry.agent, entry.row.status, entry.base?.status])
    expect(kept.at(-1)).toEqual(['plan.md', 'A', 'completed', 'in_progress'])
    expect(kept.slice(0, -1).every(([, agent, status]) => agent === 'A' && status === 'in_progress'), JSON.stringify(kept)).toBe(true)

    // The person repairs the table: the next run applies the journal, launches nothing, and records A.
    writeFileSync(plan, damaged.replace(header, header + delimiter))
    const again = await runCli(['run', 'plan.md', '--json'], {cwd: repo.root})
    expect(again.exitCode, again.all).toBe(0)
    expect(again.stdout).toContain('applied 1 row an earlier run could not record (A completed)')
    expect(again.stdout).not.toContain('"type":"launched"')
    expect((await readAgentLog(log)).starts).toEqual(new Map([['A#1', 1]]))
    const {rows} = await readTable(plan)
    expect(rows.A!.status).toBe('completed')
    expect(existsSync(journal)).toBe(false)
  }, 60_000)
})

describe('applyJournal', () => {
  const row = (status: RowState['status'], notes = ''): RowState => ({...emptyRow(), status, agentId: 'sh-1', notes})
  const entry = (agent: string, to: RowState, base: RowState): JournalEntry => ({v: 1, plan: 'plan.md', agent, row: to, base, time: '2026-11-23T00:00:00.000Z'})
  const table = (rows: Record<string, RowState>): TableState => ({rows: new Map(Object.entries(rows)), meta: {}})

  it('takes the journal where the file still says what it said; completed stays completed even after a checkout reset the row', () => {
    const applied = applyJournal(table({A: row('in_progress'), B: row('pending'), C: row('pending')}), [
      entry('A', row('completed', 'result: done'), row('in_progress')),
      entry('B', row('completed'), row('in_progress'))
    ])
    expect(applied.rows.get('A')).toMatchObject({status: 'completed', notes: 'result: done'})
    // B's row was reset to pending since (a checkout): the completion mdplan knew wins the cell both changed.
    expect(applied.rows.get('B')!.status).toBe('completed')
    expect(applied.rows.get('C')!.status).toBe('pending')
    expect([...applied.rows.keys()]).toEqual(['A', 'B', 'C'])
  })

  it("keeps a person's edit of a cell the journal did not change", () => {
    const applied = applyJournal(table({A: row('in_progress', 'my note')}), [entry('A', row('in_progress', ''), row('in_progress', ''))])
    expect(applied.rows.get('A')!.notes).toBe('my note')
  })
})
