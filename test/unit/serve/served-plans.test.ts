import {mkdtemp, mkdir, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {ServedPlans} from '../../../src/serve/served-plans.js'

const plan = (agents: string[]) => ['# Parallel Plan: p', '', '## Agents', '', ...agents, ''].join('\n')
const agent = (id: string, extra: string[] = []) => [`### ${id}: x`, '- **depends_on**: []', ...extra, '- **prompt**: |', '    echo', ''].join('\n')

let dir = ''
afterEach(() => rm(dir, {recursive: true, force: true}))

describe('the plans a server shows', () => {
  it('a folder: its plans (files with ## Agents), each followed by its child plans as a tree; nothing else', async () => {
    dir = await mkdtemp(join(tmpdir(), 'mdplan-serve-'))
    await mkdir(join(dir, 'plans', 'sub'), {recursive: true})
    await writeFile(join(dir, 'plans', 'parent.md'), plan([agent('A', ['- **plan**: sub/child.md']), agent('B')]))
    await writeFile(join(dir, 'plans', 'sub', 'child.md'), plan([agent('C')]))
    await writeFile(join(dir, 'plans', 'notes.md'), '# Notes\n\nno agents here\n')
    const served = await ServedPlans.open(['plans'], dir)
    expect(served.plans).toEqual([
      {file: join(dir, 'plans', 'parent.md'), name: join('plans', 'parent.md')},
      {file: join(dir, 'plans', 'sub', 'child.md'), name: join('plans', 'sub', 'child.md'), parent: 0, agent: 'A'}
    ])
    const first = await served.view(1)
    expect(first.view?.agents.map((a) => a.id)).toEqual(['C'])
    // Parsed again only when the file changes.
    expect(await served.view(1)).toBe(first)
  })

  it('a plan named that is not there stops the start; one that cannot be read later is an error message, not a crash', async () => {
    dir = await mkdtemp(join(tmpdir(), 'mdplan-serve-'))
    await expect(ServedPlans.open(['missing.md'], dir)).rejects.toThrow('no such plan or folder: missing.md')
    await writeFile(join(dir, 'plan.md'), plan([agent('A')]))
    const served = await ServedPlans.open(['plan.md'], dir)
    await rm(join(dir, 'plan.md'))
    expect((await served.view(0)).error).toMatch(/plan\.md/)
  })

  it('tells its listeners of the last of a burst of writes always: drained, the last view seen is the file', async () => {
    dir = await mkdtemp(join(tmpdir(), 'mdplan-serve-'))
    const ids = Array.from({length: 20}, (_, i) => `A${i}`)
    const table = (done: number) => ['## Execution State', '', '| Agent | Status |', '|---|---|', ...ids.map((id, i) => `| ${id} | ${i < done ? 'completed' : 'pending'} |`), ''].join('\n')
    const text = (done: number) => plan(ids.map((id) => agent(id))) + '\n' + table(done)
    await writeFile(join(dir, 'plan.md'), text(0))
    const served = await ServedPlans.open(['plan.md'], dir)
    const seen: number[] = []
    served.onChange(async (index) => {
      const {view} = await served.view(index)
      seen.push(view!.counts.completed ?? 0)
    })
    served.watch(1000, 250)
    try {
      for (let done = 1; done <= ids.length; done++) await writeFile(join(dir, 'plan.md'), text(done))
      await served.drain()
      // However few times the burst was told (coalesce.test.ts counts them), the last write was.
      expect(seen[seen.length - 1]).toBe(ids.length)
    } finally {
      served.close()
    }
  })
})
