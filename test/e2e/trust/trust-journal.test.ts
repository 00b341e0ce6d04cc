import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import type {JournalEntry} from '../../../src/store/journal-lines.js'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {tableStateFromPlan} from '../../../src/store/table-state.js'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'
import {logged, readAgentLog, waitForFirstStart} from '../../helpers/agent-log.js'

/**
 * A completion the damaged table cannot take is journaled as soon as the write fails, not only when the
 * run ends: a SIGKILL (or a power cut) during the minute the run waits for a repair must not make the
 * next run launch the agent again. Real processes in a real git repository; launches counted agent-side.
 */
let repo: TempRepo | undefined
beforeAll(isolateGitConfig)
afterEach(async () => {
  await repo?.cleanup()
  repo = undefined
})

const header = '| Agent | Status | Agent ID | Duration | Notes |\n'
const delimiter = '|-------|--------|----------|----------|-------|\n'

describe('the journal is written when a write fails', () => {
  it('SIGKILL while the run waits for a repair: the next run does not relaunch the completed agent', async () => {
    repo = await tempRepo()
    const log = join(repo.root, 'agents.log')
    await repo.commit('plan', {'plan.md': shellPlan({A: {script: logged(log, 'while [ ! -f go ]; do sleep 0.05; done')}, B: {deps: ['A'], script: logged(log, 'true')}})})
    const plan = join(repo.root, 'plan.md')
    const run = startCli(['run', 'plan.md', '--json'], {cwd: repo.root})
    let out = ''
    // Both: A's completion is known and the write that would record it has failed.
    const waiting = new Promise<void>((resolve, reject) => {
      run.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        if (out.includes('"type":"completed"') && out.includes('cannot write')) resolve()
      })
      void run.then((result) => reject(new Error(`the run ended before it waited for a repair: ${result.all}`)))
    })
    await waitForTable(plan, (rows) => rows.A?.status === 'in_progress')
    await waitForFirstStart(log)
    const damaged = readFileSync(plan, 'utf8').replace(delimiter, '')
    writeFileSync(plan, damaged)
    writeFileSync(join(repo.root, 'go'), '')
    await waiting
    run.kill('SIGKILL')
    await run
    expect(readFileSync(plan, 'utf8')).toBe(damaged)
    const journal = join(repo.root, '.mdplan', 'journal', 'plan.md.jsonl')

    writeFileSync(plan, damaged.replace(header, header + delimiter))
    const again = await runCli(['run', 'plan.md', '--json'], {cwd: repo.root})
    expect(again.exitCode, again.all).toBe(0)
    expect(again.stdout).toContain('applied 1 row an earlier run could not record (A completed)')
    const side = await readAgentLog(log)
    // A once (the killed run), B once (this run).
    expect(side.starts).toEqual(new Map([['A#1', 1], ['B#1', 1]]))
    const {rows} = await readTable(plan)
    expect([rows.A!.status, rows.B!.status]).toEqual(['completed', 'completed'])
    expect(existsSync(journal)).toBe(false)
  }, 60_000)

  it('repaired mid-run: the journaled row is written and leaves the journal; a journal the file already says applies as nothing', async () => {
    repo = await tempRepo()
    const log = join(repo.root, 'agents.log')
    await repo.commit('plan', {'plan.md': shellPlan({A: {script: logged(log, 'while [ ! -f go ]; do sleep 0.05; done')}, B: {deps: ['A'], script: logged(log, 'true')}})})
    const plan = join(repo.root, 'plan.md')
    const journal = join(repo.root, '.mdplan', 'journal', 'plan.md.jsonl')
    const run = startCli(['run', 'plan.md', '--json'], {cwd: repo.root})
    let out = ''
    const kept = new Promise<void>((resolve) => {
      run.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        if (out.includes('not recorded in the table yet: A completed')) resolve()
      })
    })
    await waitForTable(plan, (rows) => rows.A?.status === 'in_progress')
    await waitForFirstStart(log)
    const damaged = readFileSync(plan, 'utf8').replace(delimiter, '')
    writeFileSync(plan, damaged)
    writeFileSync(join(repo.root, 'go'), '')
    await kept
    const entries = readFileSync(journal, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as JournalEntry)
    // A's end, and before it any write of A's start the damaged table could not take (its job's key and Agent ID
    // are written as it starts: that write may come after the damage): the last one is what the table gets.
    expect(entries.map((entry) => entry.agent)).toEqual(entries.map(() => 'A'))
    expect(entries.slice(0, -1).map((entry) => entry.row.status)).toEqual(entries.slice(0, -1).map(() => 'in_progress'))
    expect(entries.at(-1)!.row.status).toBe('completed')
    writeFileSync(plan, readFileSync(plan, 'utf8').replace(header, header + delimiter))
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    expect(existsSync(journal)).toBe(false)

    // A journal that outlived its write (killed between the two), its line twice: nothing to apply, and it goes.
    const line = JSON.stringify({...entries.at(-1)!, row: tableStateFromPlan(parsePlan(readFileSync(plan, 'utf8'), plan)).rows.get('A')}) + '\n'
    writeFileSync(journal, line + line)
    const again = await runCli(['run', 'plan.md', '--json'], {cwd: repo.root})
    expect(again.exitCode, again.all).toBe(0)
    expect(again.stdout).not.toContain('applied')
    expect(existsSync(journal)).toBe(false)
    expect((await readAgentLog(log)).starts).toEqual(new Map([['A#1', 1], ['B#1', 1]]))
  }, 60_000)
})

