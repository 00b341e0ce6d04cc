import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {execa} from 'execa'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempDir, tempRepo, type TempRepo} from '../../helpers/git-repo.js'

const root = fileURLToPath(new URL('../../..', import.meta.url))
const fixture = (name: string): string => fs.readFileSync(path.join(root, 'fixtures/diff/basic', name), 'utf8')
const bin = path.join(root, 'bin/mdplan.js')

let repos: TempRepo[] = []
beforeAll(isolateGitConfig)
afterEach(async () => {
  await Promise.all(repos.map((repo) => repo.cleanup()))
  repos = []
})

const mdplan = (cwd: string, ...args: string[]) => execa(process.execPath, [bin, ...args], {cwd, reject: false, stripFinalNewline: false})

function golden(name: string, actual: string): void {
  const file = path.join(root, 'fixtures/diff/basic', name)
  if (process.env.UPDATE) fs.writeFileSync(file, actual)
  expect(actual).toBe(fs.readFileSync(file, 'utf8'))
}

/** The plan committed as `before.md`, then changed in the working tree to `after.md`. */
async function repoWithChange(): Promise<TempRepo> {
  const repo = await tempRepo({'plans/plan.md': fixture('before.md')})
  repos.push(repo)
  await repo.write('plans/plan.md', fixture('after.md'))
  return repo
}

describe('mdplan diff', () => {
  it('prints one line per agent that moved since HEAD, plus build', async () => {
    const repo = await repoWithChange()
    const result = await mdplan(repo.root, 'diff', 'plans/plan.md')
    expect(result.stderr).toBe('')
    expect(result.exitCode).toBe(0)
    golden('expected.txt', result.stdout)
    expect(result.stdout).toContain('B  pending → completed  4m 12s  result: added the route\n')
  })

  it('--markdown makes a pull-request comment', async () => {
    const repo = await repoWithChange()
    const result = await mdplan(repo.root, 'diff', 'plans/plan.md', '--markdown')
    expect(result.exitCode).toBe(0)
    golden('expected-markdown.md', result.stdout)
    expect(result.stdout).toContain('| C: db | pending → **failed** | 40s | attempt 1: schema \\| migration failed |')
  })

  it('--json against an older commit, from another folder', async () => {
    const repo = await repoWithChange()
    await repo.commit('progress')
    await repo.commit('unrelated', {'README.md': 'changed\n'})
    const result = await mdplan(path.join(repo.root, 'plans'), 'diff', 'plan.md', 'HEAD~2', '--json')
    expect(result.exitCode).toBe(0)
    const diff = JSON.parse(result.stdout)
    expect(diff.rev).toBe('HEAD~2')
    expect(diff.agents.map((agent: {id: string; from: string; to: string}) => `${agent.id} ${agent.from}→${agent.to}`)).toEqual([
      'A pending→completed',
      'B pending→completed',
      'C pending→failed',
      'D pending→pending'
    ])
    expect(diff.agents[3].notes).toBe('blocked by: C (failed)')
    expect(diff.build).toEqual({from: 'not yet run', to: 'fail (1 attempt)'})
    // Against the last commit nothing changed.
    expect((await mdplan(repo.root, 'diff', 'plans/plan.md')).stdout).toBe('plans/plan.md: no change in the Execution State since HEAD\n')
  })

  it('after a real run of shell agents, every agent shows as completed with its duration', async () => {
    const repo = await tempRepo({'plans/plan.md': fixture('before.md')})
    repos.push(repo)
    const run = await mdplan(repo.root, 'run', 'plans/plan.md', '--quiet')
    expect(run.exitCode).toBe(0)
    const result = await mdplan(repo.root, 'diff', 'plans/plan.md', '--json')
    const diff = JSON.parse(result.stdout)
    expect(diff.agents.map((agent: {id: string; to: string}) => `${agent.id} ${agent.to}`)).toEqual(['A completed', 'B completed', 'C completed', 'D completed'])
    for (const agent of diff.agents) expect(agent.duration).toMatch(/^\d/)
  })

  it('an unknown revision or a folder outside git is a clear error, exit 2', async () => {
    const repo = await repoWithChange()
    const result = await mdplan(repo.root, 'diff', 'plans/plan.md', 'no-such-rev')
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toMatch(/^mdplan diff: plans\/plan\.md at no-such-rev: /)
    const dir = await tempDir()
    fs.writeFileSync(path.join(dir, 'plan.md'), fixture('after.md'))
    const outside = await mdplan(dir, 'diff', 'plan.md')
    fs.rmSync(dir, {recursive: true})
    expect(outside.exitCode).toBe(2)
    expect(outside.stderr).toMatch(/not a git repository/i)
  })
})
