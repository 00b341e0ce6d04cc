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
})
