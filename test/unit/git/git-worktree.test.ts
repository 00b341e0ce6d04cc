import {spawn} from 'node:child_process'
import {existsSync} from 'node:fs'
import {mkdir, rm, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {execa} from 'execa'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {attributeChanges} from '../../../src/git/attribute-changes.js'
import {changedSince} from '../../../src/git/changed-since.js'
import {cleanOrphanWorktrees, formatCleanup} from '../../../src/git/clean-orphan-worktrees.js'
import {commitMessage} from '../../../src/git/commit-message.js'
import {createWorktree} from '../../../src/git/create-worktree.js'
import {listWorktrees} from '../../../src/git/list-worktrees.js'
import {mergeWorktree} from '../../../src/git/merge-worktree.js'
import {ownershipMap} from '../../../src/git/ownership-map.js'
import {removeWorktree} from '../../../src/git/remove-worktree.js'
import {takeSnapshot} from '../../../src/git/take-snapshot.js'
import {worktreeNames} from '../../../src/layout/worktree-names.js'
import {fakePlan} from '../../helpers/git-plan.js'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {transpileGitModules} from '../../helpers/git-transpile.js'

const slug = 'auth'
const plan = fakePlan(
  [
    {id: 'A', name: 'types', creates: ['src/a.ts'], modifies: ['src/shared.ts']},
    {id: 'B', name: 'api', creates: ['src/b.ts'], modifies: ['src/shared.ts']},
    {id: 'C', name: 'ui', dependsOn: ['A'], creates: ['src/c.ts']}
  ],
  'Add auth'
)
const owners = ownershipMap(plan)
const agent = (id: string) => plan.agents.find((a) => a.id === id)!
const shared = 'line 1\nline 2\nline 3\n'

let repo: TempRepo
beforeAll(isolateGitConfig)
afterEach(() => repo?.cleanup())

async function worktreeFor(id: string, base?: string) {
  const result = await createWorktree({root: repo.root, slug, agent: id, ...(base ? {base} : {})})
  if (!result.ok) throw new Error(result.reason)
  return result
}

async function gitIn(cwd: string, ...args: string[]): Promise<void> {
  await execa('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], {cwd})
}

async function registered(): Promise<string[]> {
  return (await listWorktrees(repo.root)).map((entry) => entry.path).filter((path) => path.includes('.mdplan'))
}

describe('isolation: worktree', () => {
  it('an agent that ended on another branch of its worktree, or on a detached HEAD, has that work merged', async () => {
    repo = await tempRepo({'src/shared.ts': shared})
    const [a, b] = await Promise.all([worktreeFor('A'), worktreeFor('B')])
    await gitIn(a.path, 'checkout', '-q', '-b', 'elsewhere')
    await writeFile(join(a.path, 'src/a.ts'), 'export const a = 1\n')
    await writeFile(join(b.path, 'src/b.ts'), 'export const b = 2\n')
    await gitIn(b.path, 'add', 'src/b.ts')
    await gitIn(b.path, 'commit', '-q', '-m', 'B by itself')
    await gitIn(b.path, 'checkout', '-q', '--detach')
    await writeFile(join(b.path, 'src/b2.ts'), 'export const b2 = 3\n')
    const mergedA = await mergeWorktree({root: repo.root, worktree: a.path, branch: a.branch, message: commitMessage('Add auth', agent('A'))})
    const mergedB = await mergeWorktree({root: repo.root, worktree: b.path, branch: b.branch, message: commitMessage('Add auth', agent('B'))})
    expect(mergedA).toMatchObject({ok: true, merged: true})
    expect(mergedB).toMatchObject({ok: true, merged: true})
    expect(await repo.read('src/a.ts')).toBe('export const a = 1\n')
    expect(await repo.read('src/b.ts')).toBe('export const b = 2\n')
    expect(await repo.read('src/b2.ts')).toBe('export const b2 = 3\n')
  })

  it('runs two agents in their own worktrees; disjoint changes merge cleanly', async () => {
    repo = await tempRepo({'src/shared.ts': shared})
    const [a, b] = await Promise.all([worktreeFor('A'), worktreeFor('B')])
    expect(a).toMatchObject({branch: 'mdplan/auth/A', path: join(repo.root, '.mdplan/worktrees/auth/A'), reused: false})
    expect(b.branch).toBe('mdplan/auth/B')

    const snapA = await takeSnapshot(a.path)
    await writeFile(join(a.path, 'src/a.ts'), 'export const a = 1\n')
    await writeFile(join(b.path, 'src/b.ts'), 'export const b = 2\n')
    // In its own worktree, every change is the agent's: attribution is exact.
    const changed = snapA.ok ? await changedSince(snapA.snapshot) : undefined
    expect(changed?.ok && attributeChanges({agent: 'A', changed: changed.paths, owners, running: ['A']}).own).toEqual(['src/a.ts'])

    const mergedA = await mergeWorktree({root: repo.root, worktree: a.path, branch: a.branch, message: commitMessage('Add auth', agent('A'))})
    const mergedB = await mergeWorktree({root: repo.root, worktree: b.path, branch: b.branch, message: commitMessage('Add auth', agent('B'))})
    expect(mergedA).toMatchObject({ok: true, merged: true, workCommit: expect.stringMatching(/^[0-9a-f]{40}$/)})
    expect(mergedB).toMatchObject({ok: true, merged: true})
    expect(await repo.read('src/a.ts')).toBe('export const a = 1\n')
    expect(await repo.read('src/b.ts')).toBe('export const b = 2\n')
    expect(await repo.git('log', '--format=%s', 'mdplan/auth/A', '-1')).toBe('Add auth · A: types')
    expect(await repo.git('status', '--porcelain')).toBe('')

    for (const wt of [a, b]) {
      expect(await removeWorktree({root: repo.root, path: wt.path, branch: wt.branch})).toEqual({ok: true, branchDeleted: true})
    }
    expect(await registered()).toEqual([])
    expect(existsSync(a.path)).toBe(false)
    expect(await repo.git('branch', '--list', 'mdplan/*')).toBe('')
  })

  it('fails the second of two agents that change the same lines, naming the paths, and leaves the main tree clean', async () => {
    repo = await tempRepo({'src/shared.ts': shared, 'src/other.ts': 'o\n'})
    const a = await worktreeFor('A')
    const b = await worktreeFor('B')
    await writeFile(join(a.path, 'src/shared.ts'), 'line 1\nline 2 by A\nline 3\n')
    await writeFile(join(b.path, 'src/shared.ts'), 'line 1\nline 2 by B\nline 3\n')
    await writeFile(join(b.path, 'src/b.ts'), 'b\n')

    const mergedA = await mergeWorktree({root: repo.root, worktree: a.path, branch: a.branch, message: commitMessage('Add auth', agent('A'))})
    expect(mergedA.ok).toBe(true)
    const headAfterA = await repo.git('rev-parse', 'HEAD')
    const mergedB = await mergeWorktree({root: repo.root, worktree: b.path, branch: b.branch, message: commitMessage('Add auth', agent('B'))})
    expect(mergedB).toEqual({ok: false, reason: 'merge conflict in src/shared.ts', conflicts: ['src/shared.ts']})

    // The merge was aborted: A's result stands, nothing half-merged is left behind.
    expect(await repo.git('rev-parse', 'HEAD')).toBe(headAfterA)
    expect(await repo.read('src/shared.ts')).toBe('line 1\nline 2 by A\nline 3\n')
    expect(await repo.git('status', '--porcelain')).toBe('')
    expect(existsSync(join(repo.root, 'src/b.ts'))).toBe(false)
    // B's work is kept on its branch for a person to resolve.
    expect(await repo.git('show', 'mdplan/auth/B:src/shared.ts')).toBe('line 1\nline 2 by B\nline 3')
  })

  it('starts a dependent agent from HEAD after its dependencies were merged, and reuses a live worktree', async () => {
    repo = await tempRepo({'src/shared.ts': shared})
    const a = await worktreeFor('A')
    await writeFile(join(a.path, 'src/a.ts'), 'a\n')
    expect((await mergeWorktree({root: repo.root, worktree: a.path, branch: a.branch, message: 'A'})).ok).toBe(true)

    const c = await worktreeFor('C')
    expect(c.base).toBe(await repo.git('rev-parse', 'HEAD'))
    expect(existsSync(join(c.path, 'src/a.ts'))).toBe(true)
    await writeFile(join(c.path, 'src/c.ts'), 'work in progress\n')

    const again = await worktreeFor('C')
    expect(again.reused).toBe(true)
    expect(existsSync(join(again.path, 'src/c.ts'))).toBe(true)

    const fresh = await createWorktree({root: repo.root, slug, agent: 'C', fresh: true})
    expect(fresh.ok && fresh.reused).toBe(false)
    expect(existsSync(join(c.path, 'src/c.ts'))).toBe(false)
  })

  it('names the files in the way when the main tree’s own changes block a merge', async () => {
    repo = await tempRepo({'src/shared.ts': shared})
    const a = await worktreeFor('A')
    await writeFile(join(a.path, 'src/a.ts'), 'a\n')
    await repo.commit('moved on', {'src/other.ts': 'o\n'})
    await repo.write('notes.txt', 'staged by a person\n')
    await repo.git('add', 'notes.txt')
    const merged = await mergeWorktree({root: repo.root, worktree: a.path, branch: a.branch, message: 'A'})
    expect(merged).toEqual({ok: false, reason: 'git merge: changes in the main working tree are in the way: notes.txt', conflicts: []})
    expect(await repo.git('status', '--porcelain')).toBe('A  notes.txt')
  })

  it('reports nothing to merge when the branch has no new work', async () => {
    repo = await tempRepo()
    const a = await worktreeFor('A')
    const merged = await mergeWorktree({root: repo.root, worktree: a.path, branch: a.branch, message: 'A'})
    expect(merged).toMatchObject({ok: true, merged: false})
    expect(merged.ok && merged.workCommit).toBeUndefined()
  })

  it('keeps the main tree’s `git status` clean of worktrees', async () => {
    repo = await tempRepo()
    await worktreeFor('A')
    expect(await repo.git('status', '--porcelain', '--untracked-files=all')).toBe('')
  })
})

describe('orphan worktrees', () => {
  let compiled: string
  beforeAll(async () => {
    compiled = await transpileGitModules()
  })
  afterAll(() => rm(compiled, {recursive: true, force: true}))

  it('cleans up after a run killed with SIGKILL', async () => {
    repo = await tempRepo({'src/shared.ts': shared})
    const script = join(compiled, 'child.mjs')
    await writeFile(
      script,
      `import {writeFileSync} from 'node:fs'
import {createWorktree} from './git/create-worktree.js'
const [root, slug, ...agents] = process.argv.slice(2)
for (const agent of agents) {
  const result = await createWorktree({root, slug, agent})
  if (!result.ok) { console.error(result.reason); process.exit(2) }
  writeFileSync(result.path + '/src/half-done.ts', 'half done by ' + agent + '\\n')
}
console.log('READY')
setInterval(() => {}, 1000)
`
    )
    const child = spawn(process.execPath, [script, repo.root, slug, 'A', 'B'], {stdio: ['ignore', 'pipe', 'pipe'], env: process.env})
    let stderr = ''
    child.stderr.on('data', (chunk) => (stderr += chunk))
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk) => String(chunk).includes('READY') && resolve())
      child.on('exit', (code) => reject(new Error(`child exited ${code}: ${stderr}`)))
    })
    const exited = new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal)))
    child.kill('SIGKILL')
    expect(await exited).toBe('SIGKILL')

    const a = worktreeNames(repo.root, slug, 'A')
    const b = worktreeNames(repo.root, slug, 'B')
    expect(existsSync(join(a.path, 'src/half-done.ts'))).toBe(true)
    expect((await registered()).length).toBe(2)

    // B is in_progress and will be resumed: its worktree stays.
    const result = await cleanOrphanWorktrees({root: repo.root, slug, keep: (id) => id === 'B', agents: ['A', 'B', 'C']})
    expect(result).toEqual({removed: [{agent: 'A', path: a.path}], branchesDeleted: ['mdplan/auth/A'], branchesKept: [], failed: []})
    expect(formatCleanup(result)).toEqual(['git: removed 1 worktree left by an earlier run (A)', 'git: deleted merged branch mdplan/auth/A'])
    expect(existsSync(a.path)).toBe(false)
    expect(existsSync(join(repo.root, '.git/worktrees/A'))).toBe(false)
    expect(await registered()).toEqual([b.path])
    expect(existsSync(join(b.path, 'src/half-done.ts'))).toBe(true)

    // Next run: B is not resumable any more.
    const later = await cleanOrphanWorktrees({root: repo.root, slug, keep: () => false})
    expect(later.removed).toEqual([{agent: 'B', path: b.path}])
    expect(await registered()).toEqual([])
    expect(await repo.git('branch', '--list', 'mdplan/*')).toBe('')
    expect(formatCleanup(await cleanOrphanWorktrees({root: repo.root, slug, keep: () => false}))).toEqual([])
  })

  it('removes locked worktrees, folders git never registered and registrations whose folder is gone; keeps unmerged branches', async () => {
    repo = await tempRepo({'src/shared.ts': shared})
    const a = await worktreeFor('A')
    const b = await worktreeFor('B')
    const c = await worktreeFor('C')
    // A `worktree add` killed midway leaves its worktree locked.
    await repo.git('worktree', 'lock', '--reason', 'initializing', a.path)
    await rm(b.path, {recursive: true, force: true})
    const stray = join(repo.root, '.mdplan/worktrees/auth/D')
    await mkdir(stray, {recursive: true})
    await writeFile(join(stray, 'junk'), 'x')
    await writeFile(join(c.path, 'src/c.ts'), 'c\n')
    // C committed work on its branch that was never merged: its branch must survive the clean-up.
    await gitIn(c.path, 'add', 'src/c.ts')
    await gitIn(c.path, 'commit', '--quiet', '-m', 'C work')

    const result = await cleanOrphanWorktrees({root: repo.root, slug, keep: () => false})
    expect(result.removed.map((r) => r.agent).sort()).toEqual(['A', 'C', 'D'])
    expect(result.branchesDeleted.sort()).toEqual(['mdplan/auth/A', 'mdplan/auth/B'])
    expect(result.branchesKept).toEqual(['mdplan/auth/C'])
    expect(result.failed).toEqual([])
    expect(await registered()).toEqual([])
    expect(existsSync(stray)).toBe(false)
    expect(formatCleanup(result)).toContain('git: kept branch with unmerged work: mdplan/auth/C')

    // Relaunching C picks its kept branch up again, with its work, from where it left the main line.
    const start = await repo.git('rev-parse', 'HEAD')
    await repo.commit('main moved on', {'src/other.ts': 'o\n'})
    const again = await worktreeFor('C')
    expect(again).toMatchObject({reused: false, base: start})
    expect(existsSync(join(again.path, 'src/c.ts'))).toBe(true)
  })
})
