import {cp, mkdir, mkdtemp, readFile, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {registerHistory} from '../../../src/cli/commands/history.js'
import type {AgentHistory, HistoryEntry} from '../../../src/history/history-types.js'
import {pruneHistory} from '../../../src/history/prune-history.js'
import {updateHistory} from '../../../src/history/update-history.js'
import {loadPlan} from '../../../src/plan/load-plan.js'
import {runCommand} from '../../../fixtures/report/run-command.js'
import {runCli, shellPlan} from '../../helpers/run-cli.js'

const fixture = new URL('../../../fixtures/history/running/', import.meta.url)

async function copy(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mdplan-history-'))
  await cp(fixture, dir, {recursive: true})
  return dir
}

function entry(agent_id: string, status: string, timestamp: string): HistoryEntry {
  return {
    agent_id,
    task_description: agent_id,
    phase: null,
    plan: 'other.md',
    segment: null,
    timestamp,
    status,
    completion_timestamp: status === 'spawned' ? null : timestamp,
    execution_mode: 'sequential',
    parallel_group: null,
    granularity: 'plan',
    depends_on: [],
    files_modified: [],
    checkpoints_skipped: 0,
    task_results: []
  }
}

const day = (n: number): string => `2026-01-${String(n).padStart(2, '0')}T00:00:00.000Z`

describe('updateHistory', () => {
  it('records every agent that has run, in schema 1.2, with statuses mapped', async () => {
    const plan = await loadPlan(new URL('plan.md', fixture).pathname)
    const {history, currentAgentId} = updateHistory(undefined, plan, {planName: 'plan.md', now: day(20)})
    expect(history.version).toBe('1.2')
    expect(history.max_entries).toBe(50)
    expect(history.entries.map((e) => [e.agent_id, e.status])).toEqual([
      ['sess-aaa', 'completed'],
      ['sess-bbb', 'spawned'],
      ['sess-ccc', 'spawned'],
      ['E', 'failed']
    ])
    expect(history.entries[0]).toEqual({
      agent_id: 'sess-aaa',
      task_description: 'A: types — Shared types.',
      phase: 'Credential management',
      plan: 'plan.md',
      segment: null,
      // No run log: the table's own timing, not the time of the command.
      timestamp: '2026-01-15T14:22:10.000Z',
      status: 'completed',
      completion_timestamp: '2026-01-15T14:25:10.000Z',
      execution_mode: 'parallel',
      parallel_group: 'wave-1',
      granularity: 'agent',
      depends_on: [],
      files_modified: ['src/lib/types.ts'],
      checkpoints_skipped: 0,
      task_results: [{task: 'A: types', status: 'completed', duration: '45s', notes: null}]
    })
    expect(history.entries[1]).toMatchObject({parallel_group: 'wave-2', depends_on: ['A'], files_modified: ['app/api/credentials/route.ts', 'src/lib/db.ts'], completion_timestamp: null})
    expect(currentAgentId).toBe('sess-ccc')
  })

  it('updates entries in place on the next call, keeping first-seen times and other tools’ fields', async () => {
    const plan = await loadPlan(new URL('plan.md', fixture).pathname)
    const first = updateHistory(undefined, plan, {planName: 'plan.md', now: day(20)}).history
    first.entries[1]!.custom = 'kept'
    const text = plan.text.replace('| B | in_progress | sess-bbb | — |', '| B | completed | sess-bbb | 3m 00s |')
    const {parsePlan} = await import('../../../src/plan/parse-plan.js')
    const second = updateHistory(first, parsePlan(text, 'plan.md'), {planName: 'plan.md', now: day(21)}).history
    expect(second.entries).toHaveLength(4)
    expect(second.entries[1]).toMatchObject({agent_id: 'sess-bbb', status: 'completed', timestamp: '2026-01-15T14:22:10.000Z', completion_timestamp: '2026-01-15T14:25:10.000Z', custom: 'kept'})
    // A finished entry keeps its completion time.
    expect(second.entries[0]!.completion_timestamp).toBe('2026-01-15T14:25:10.000Z')
    // The run log's times are each agent's own, and win.
    const times = new Map([['B', {start: day(3), end: day(4)}]])
    const third = updateHistory(second, parsePlan(text, 'plan.md'), {planName: 'plan.md', now: day(22), times}).history
    expect(third.entries[1]).toMatchObject({timestamp: day(3), completion_timestamp: day(4)})
  })
})

describe('pruneHistory', () => {
  it('drops the oldest completed first, then failed, and never a spawned entry', () => {
    const entries = [
      entry('s1', 'spawned', day(1)),
      entry('c2', 'completed', day(2)),
      entry('f3', 'failed', day(3)),
      entry('c4', 'completed', day(4)),
      entry('s5', 'spawned', day(5)),
      entry('c6', 'completed', day(6))
    ]
    expect(pruneHistory(entries, 6).map((e) => e.agent_id)).toEqual(['s1', 'c2', 'f3', 'c4', 's5', 'c6'])
    expect(pruneHistory(entries, 4).map((e) => e.agent_id)).toEqual(['s1', 'f3', 's5', 'c6'])
    expect(pruneHistory(entries, 3).map((e) => e.agent_id)).toEqual(['s1', 'f3', 's5'])
    expect(pruneHistory(entries, 2).map((e) => e.agent_id)).toEqual(['s1', 's5'])
    // Only spawned entries left: more than max stay.
    expect(pruneHistory(entries, 1).map((e) => e.agent_id)).toEqual(['s1', 's5'])
  })
})

describe('mdplan history', () => {
  it('gives each agent its own start and completion times, from the run log', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-history-'))
    await writeFile(
      join(dir, 'plan.md'),
      shellPlan({A: {script: 'sleep 1\necho "RESULT: SUCCESS"'}, B: {deps: ['A'], script: 'sleep 1\necho "RESULT: SUCCESS"'}})
    )
    const run = await runCli(['run', 'plan.md', '--json'], {cwd: dir})
    expect(run.exitCode, run.all).toBe(0)
    const events = run.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as {type: string; agent?: string; time: string})
    const at = (type: string, agent: string): string => events.find((e) => e.type === type && e.agent === agent)!.time
    const history = await runCli(['history', 'plan.md'], {cwd: dir})
    expect(history.exitCode, history.all).toBe(0)
    const {entries} = JSON.parse(await readFile(join(dir, '.planning/agent-history.json'), 'utf8')) as AgentHistory
    expect(entries.map((e) => [e.task_description.slice(0, 1), e.timestamp, e.completion_timestamp])).toEqual([
      ['A', at('launched', 'A'), at('completed', 'A')],
      ['B', at('launched', 'B'), at('completed', 'B')]
    ])
    // B started after A completed: four different times, none the time of the history command.
    expect(new Set(entries.flatMap((e) => [e.timestamp, e.completion_timestamp])).size).toBe(4)
  })

  it('writes the history and current-agent-id.txt', async () => {
    const dir = await copy()
    const run = await runCommand(registerHistory, ['history', 'plan.md'], {cwd: dir})
    expect(run).toMatchObject({code: 0, stdout: '.planning/agent-history.json: 4 entries (max 50)\n.planning/current-agent-id.txt: sess-ccc\n'})
    const history = JSON.parse(await readFile(join(dir, '.planning/agent-history.json'), 'utf8')) as AgentHistory
    expect(history.version).toBe('1.2')
    for (const e of history.entries) {
      expect(Object.keys(e).sort()).toEqual(
        ['agent_id', 'task_description', 'phase', 'plan', 'segment', 'timestamp', 'status', 'completion_timestamp', 'execution_mode', 'parallel_group', 'granularity', 'depends_on', 'files_modified', 'checkpoints_skipped', 'task_results'].sort()
      )
    }
    expect(await readFile(join(dir, '.planning/current-agent-id.txt'), 'utf8')).toBe('sess-ccc\n')
  })

  it('keeps at most max entries of an existing file, pruning completed ones first and never spawned ones', async () => {
    const dir = await copy()
    const existing: AgentHistory = {
      version: '1.1',
      max_entries: 5,
      entries: [entry('old-spawned', 'spawned', day(1)), entry('old-done-1', 'completed', day(2)), entry('old-failed', 'failed', day(3)), entry('old-done-2', 'completed', day(4))]
    }
    await mkdir(join(dir, '.planning'))
    await writeFile(join(dir, '.planning/agent-history.json'), JSON.stringify(existing))
    const run = await runCommand(registerHistory, ['history', 'plan.md'], {cwd: dir})
    expect(run.stdout).toContain('5 entries (max 5)')
    const history = JSON.parse(await readFile(join(dir, '.planning/agent-history.json'), 'utf8')) as AgentHistory
    expect(history.version).toBe('1.2')
    expect(history.entries.map((e) => e.agent_id)).toEqual(['old-spawned', 'old-failed', 'sess-bbb', 'sess-ccc', 'E'])

    const smaller = await runCommand(registerHistory, ['history', 'plan.md', '--max-entries', '2'], {cwd: dir})
    expect(smaller.code).toBe(0)
    const pruned = JSON.parse(await readFile(join(dir, '.planning/agent-history.json'), 'utf8')) as AgentHistory
    expect(pruned.max_entries).toBe(2)
    expect(pruned.entries.map((e) => e.agent_id)).toEqual(['old-spawned', 'sess-bbb', 'sess-ccc'])
  })

  it('--out elsewhere; a broken history file is reported and left alone', async () => {
    const dir = await copy()
    const ok = await runCommand(registerHistory, ['history', 'plan.md', '--out', 'state/h.json'], {cwd: dir})
    expect(ok.stdout).toContain('state/current-agent-id.txt: sess-ccc')
    await writeFile(join(dir, 'state/h.json'), '{broken')
    const bad = await runCommand(registerHistory, ['history', 'plan.md', '--out', 'state/h.json'], {cwd: dir})
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/h\.json is not valid JSON .*; fix it or move it away, then run `mdplan history` again\. Nothing was written\./)
    expect(await readFile(join(dir, 'state/h.json'), 'utf8')).toBe('{broken')
  })

  it('rejects a bad --max-entries', async () => {
    const dir = await copy()
    const run = await runCommand(registerHistory, ['history', 'plan.md', '--max-entries', '0'], {cwd: dir})
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('expected a whole number of at least 1')
  })
})
