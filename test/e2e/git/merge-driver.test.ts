import fs from 'node:fs'
import {readFile} from 'node:fs/promises'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {execa} from 'execa'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {driverCommand} from '../../../src/init/driver-command.js'
import {installMergeDriver} from '../../../src/init/install-merge-driver.js'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'

const root = fileURLToPath(new URL('../../..', import.meta.url))
const fixtures = path.join(root, 'fixtures/merge')
const bin = path.join(root, 'bin/mdplan.js')
const cases = fs.readdirSync(fixtures).filter((name) => fs.existsSync(path.join(fixtures, name, 'base.md')))

/** The agents each case must leave in conflict (every other case merges cleanly). */
const conflicted: Record<string, string[]> = {requeue: ['B'], 'prompt-conflict': []}
/** Cases with a conflict outside the owned regions (git's own markers). */
const textConflicts = new Set(['prompt-conflict'])

let repos: TempRepo[] = []
beforeAll(isolateGitConfig)
afterEach(async () => {
  await Promise.all(repos.map((repo) => repo.cleanup()))
  repos = []
})

/** A real merge: base committed on main, theirs on a branch, ours on main, then `git merge theirs` with the driver configured. */
async function gitMerge(name: string): Promise<{text: string; exitCode: number; stdout: string; stderr: string}> {
  const repo = await tempRepo()
  repos.push(repo)
  const read = (side: string): string => fs.readFileSync(path.join(fixtures, name, `${side}.md`), 'latin1')
  // latin1 both ways: the bytes go to the repository exactly as they are in the fixture.
  const put = (side: string): void => fs.writeFileSync(path.join(repo.root, 'plans/plan.md'), read(side), 'latin1')
  await installMergeDriver({root: repo.root, command: `"${process.execPath}" "${bin}"`})
  fs.mkdirSync(path.join(repo.root, 'plans'))
  put('base')
  await repo.commit('base')
  await repo.git('checkout', '--quiet', '-b', 'theirs')
  put('theirs')
  await repo.commit('theirs')
  await repo.git('checkout', '--quiet', 'main')
  put('ours')
  await repo.commit('ours')
  const merge = await execa('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'merge', '--no-edit', 'theirs'], {cwd: repo.root, reject: false})
  return {text: await readFile(path.join(repo.root, 'plans/plan.md'), 'latin1'), exitCode: merge.exitCode ?? -1, stdout: String(merge.stdout), stderr: String(merge.stderr)}
}

function statuses(text: string): Record<string, string> {
  const plan = parsePlan(Buffer.from(text, 'latin1').toString('utf8'), 'plan.md')
  return Object.fromEntries((plan.state?.table?.rows ?? []).map((row) => [row.agent, row.statusRaw]))
}

describe('mdplan merge-driver under a real git merge', () => {
  it.each(cases)('%s matches its golden output', async (name) => {
    const result = await gitMerge(name)
    const expectedFile = path.join(fixtures, name, 'expected.md')
    if (process.env.UPDATE) fs.writeFileSync(expectedFile, result.text, 'latin1')
    expect(result.text).toBe(fs.readFileSync(expectedFile, 'latin1'))
    const agents = conflicted[name] ?? []
    expect(result.exitCode === 0).toBe(agents.length === 0 && !textConflicts.has(name))
    for (const agent of agents) expect(result.text).toContain(`<<<<<<< ours: agent ${agent}:`)
    if (agents.length === 0 && !textConflicts.has(name)) expect(result.text).not.toContain('<<<<<<<')
  })

  it('two branches that ran disjoint agents merge into the union of their progress, bytes outside the regions kept', async () => {
    const result = await gitMerge('disjoint')
    expect(result.exitCode).toBe(0)
    expect(statuses(result.text)).toEqual({A: 'completed', B: 'completed', C: 'completed', D: 'failed'})
    expect(result.text).toContain('Started: 2026-03-01T09:58:00Z') // the earlier
    expect(result.text).toContain('Last updated: 2026-03-01T10:05:00Z') // the later
    expect(result.text).toContain('  class A,B,C completed\n  class D failed\n') // the graph redrawn from the merged table
    const ours = fs.readFileSync(path.join(fixtures, 'disjoint/ours.md'), 'latin1')
    const head = (text: string): string => text.slice(0, text.indexOf('```mermaid'))
    expect(head(result.text)).toBe(head(ours))
  })

  it('both sides completing the same agent: completed, every attempt kept, the later side’s run in the row', async () => {
    const result = await gitMerge('same-agent')
    expect(result.exitCode).toBe(0)
    expect(statuses(result.text)).toMatchObject({B: 'completed', C: 'in_progress'})
    expect(result.text).toContain('| B | completed | sh-cccc0003 | 3m 10s | attempt 1: route test fails; attempt 2: lint;')
  })

  it('a re-queue against a completion is a conflict that names the agent', async () => {
    const result = await gitMerge('requeue')
    expect(result.exitCode).not.toBe(0)
    expect(result.stdout + result.stderr).toMatch(/CONFLICT \(content\): Merge conflict in plans\/plan\.md/)
    expect(result.text).toContain('<<<<<<< ours: agent B: completed on ours, re-queued (pending) on theirs\n| B | completed |')
    expect(result.text).toContain('=======\n| B | pending | sh-aaaa0001 |')
    // The rest of the table still merged: C completed on theirs.
    expect(result.text).toContain('| C | completed | sh-eeee0005 | 41s | result: schema |')
  })

  it('a hand edit in a prompt on one side and progress on the other both land', async () => {
    const result = await gitMerge('prompt-edit')
    expect(result.exitCode).toBe(0)
    expect(result.text).toContain('    echo api\n    echo "and its tests"\n')
    expect(statuses(result.text)).toEqual({A: 'pending', B: 'pending', C: 'completed', D: 'failed'})
  })

  it('an aligned table stays aligned, re-padded for a wider value', async () => {
    const result = await gitMerge('aligned')
    expect(result.exitCode).toBe(0)
    const rows = Buffer.from(result.text, 'latin1').toString('utf8').split('\n').filter((line) => line.startsWith('|'))
    expect(new Set(rows.map((line) => line.length)).size).toBe(1)
    expect(statuses(result.text)).toMatchObject({B: 'completed', C: 'completed'})
  })

  it('the same prompt line changed on both sides is an ordinary text conflict; the table still merges', async () => {
    const result = await gitMerge('prompt-conflict')
    expect(result.exitCode).not.toBe(0)
    expect(result.text).toContain('<<<<<<< ours\n    echo api v2\n=======\n    echo api v3\n>>>>>>> theirs\n')
    expect(statuses(result.text)).toEqual({A: 'completed', B: 'completed', C: 'completed', D: 'failed'})
  })

  it('an agent added on one side lands with its row in place, and in the redrawn graph', async () => {
    const result = await gitMerge('added-agent')
    expect(result.exitCode).toBe(0)
    expect(Object.keys(statuses(result.text))).toEqual(['A', 'B', 'B2', 'C', 'D'])
    expect(statuses(result.text)).toMatchObject({A: 'completed', B: 'completed', B2: 'pending'})
    expect(result.text).toContain('  B --> B2\n')
    expect(result.text).toContain('  class B2,C,D pending\n')
  })

  it('a CRLF plan with a byte-order mark and no final newline keeps all three; open questions are united', async () => {
    const result = await gitMerge('crlf-bom')
    expect(result.exitCode).toBe(0)
    expect(result.text.startsWith('\xef\xbb\xbf')).toBe(true)
    expect(result.text.replace(/\r\n/g, '')).not.toContain('\n')
    expect(result.text.endsWith('Build: not yet run')).toBe(true)
    expect(result.text).toContain('### B: Which store should the cache use?')
    expect(result.text).toContain('### D: Which port?')
    expect(statuses(result.text)).toEqual({A: 'pending', B: 'needs_input', C: 'completed', D: 'needs_input'})
  })
})

describe('mdplan merge-driver by hand', () => {
  it('an unreadable input is exit 2 and ours is left as it was', async () => {
    const repo = await tempRepo({'ours.md': 'mine\n', 'theirs.md': 'theirs\n'})
    repos.push(repo)
    const result = await execa(process.execPath, [bin, 'merge-driver', 'missing.md', 'ours.md', 'theirs.md', 'plans/x.md'], {cwd: repo.root, reject: false})
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toMatch(/^mdplan merge-driver: plans\/x\.md: cannot read .*missing\.md \(ENOENT\)/)
    expect(await repo.read('ours.md')).toBe('mine\n')
  })
})

describe('mdplan init --git', () => {
  it('adds the attributes line and the driver once, and keeps the lines already there', async () => {
    const repo = await tempRepo({'.gitattributes': '*.png binary\r\nplans/*.md text eol=crlf'})
    repos.push(repo)
    const run = () => execa(process.execPath, [bin, 'init', '--git', '--dir', repo.root], {cwd: repo.root})
    const first = await run()
    expect(first.stdout).toContain('.gitattributes: added (plans/*.md merge=mdplan)')
    const attributes = await repo.read('.gitattributes')
    expect(attributes).toBe('*.png binary\r\nplans/*.md text eol=crlf\r\nplans/*.md merge=mdplan\r\n')
    expect(await repo.git('config', '--get', 'merge.mdplan.driver')).toBe(driverCommand(`"${process.execPath}" "${bin}"`))
    const second = await run()
    expect(second.stdout).toContain('.gitattributes: unchanged')
    expect(second.stdout).toContain('merge.mdplan.driver: unchanged')
    expect(await repo.read('.gitattributes')).toBe(attributes)
  })

  it('never replaces another merge driver named for the plans', async () => {
    const repo = await tempRepo({'.gitattributes': 'docs/*.md merge=union\n'})
    repos.push(repo)
    const setup = await installMergeDriver({root: repo.root, plans: 'docs/*.md'})
    expect(setup.attributes).toBe('kept-other-driver')
    expect(await repo.read('.gitattributes')).toBe('docs/*.md merge=union\n')
  })
})
