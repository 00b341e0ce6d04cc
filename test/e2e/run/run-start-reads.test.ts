import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it, vi} from 'vitest'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'

// Issue 24: before its first launch a run read the whole state table once per agent (to see whether
// every agent had a row): a million row reads at 1000 agents, most of the first launch's time.
// Counted here, not timed: the table's rows are read a few times before the first launch, not once per agent.

const reads = vi.hoisted(() => ({count: 0}))
vi.mock('../../../src/store/table-state.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/store/table-state.js')>()
  return {
    ...original,
    readRows: (...args: Parameters<typeof original.readRows>) => {
      reads.count++
      return original.readRows(...args)
    }
  }
})

const {runPlan} = await import('../../../src/run/run-plan.js')

let repo: TempRepo | undefined
beforeAll(isolateGitConfig)
afterEach(async () => repo?.cleanup())

function plan(ids: string[], logFile: string): string {
  const agents = ids.flatMap((id, i) => [
    `### ${id}: agent ${i}`,
    `- **depends_on**: [${i === 0 ? '' : ids[i - 1]}]`,
    '- **prompt**: |',
    ...logged(logFile, 'true')
      .split('\n')
      .map((line) => `    ${line}`),
    ''
  ])
  const rows = ids.map((id) => `| ${id} | pending | — | — | |`)
  return [
    '---',
    'runner: shell',
    '---',
    '',
    '# Parallel Plan: reads',
    '',
    '## Agents',
    '',
    ...agents,
    '## Execution State',
    '',
    '| Agent | Status | Agent ID | Duration | Notes |',
    '|-------|--------|----------|----------|-------|',
    ...rows,
    '',
    'Started: —',
    'Last updated: —',
    ''
  ].join('\n')
}

describe('the start of a run', () => {
  it('reads the state table a fixed number of times before the first launch, whatever the number of agents', async () => {
    const ids = Array.from({length: 60}, (_, i) => `A${i}`)
    repo = await tempRepo({'plan.md': 'placeholder\n'})
    const logFile = join(repo.root, 'agents.log')
    writeFileSync(join(repo.root, 'plan.md'), plan(ids, logFile))
    let beforeLaunch: number | undefined
    reads.count = 0
    const result = await runPlan({
      file: join(repo.root, 'plan.md'),
      cwd: repo.root,
      pollMs: 50,
      onEvent: (event) => {
        if (event.type === 'launched' && beforeLaunch === undefined) beforeLaunch = reads.count
      }
    })
    expect(result.exitCode).toBe(0)
    // Every agent ran once, counted from the agents' side.
    const side = await readAgentLog(logFile)
    expect([...side.starts.keys()].sort()).toEqual(ids.map((id) => `${id}#1`).sort())
    expect([...side.starts.values()].every((n) => n === 1)).toBe(true)
    expect(side.unfinished).toEqual([])
    // Main read the rows 60 times here (once per agent), and 1000 times at 1000 agents.
    expect(beforeLaunch).toBeDefined()
    expect(beforeLaunch!).toBeLessThan(10)
  })
})
