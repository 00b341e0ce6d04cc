import {rm} from 'node:fs/promises'
import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {attributeChanges} from '../../../src/git/attribute-changes.js'
import {changedSince} from '../../../src/git/changed-since.js'
import {formatScopeNote} from '../../../src/git/format-scope-note.js'
import {gitRoot} from '../../../src/git/git-root.js'
import {headSha, shortSha} from '../../../src/git/head-sha.js'
import {isGitRepo, notGitRepoMessage} from '../../../src/git/is-git-repo.js'
import {ownershipMap} from '../../../src/git/ownership-map.js'
import {formatResumeConflicts, resumeConflicts} from '../../../src/git/resume-conflicts.js'
import {takeSnapshot, type Snapshot} from '../../../src/git/take-snapshot.js'
import {getNote, setNote} from '../../../src/plan/notes.js'
import {fakePlan} from '../../helpers/git-plan.js'
import {isolateGitConfig, tempDir, tempRepo, type TempRepo} from '../../helpers/git-repo.js'

const plan = fakePlan([
  {id: 'A', creates: ['src/a.ts']},
  {id: 'B', creates: ['src/b.ts']},
  {id: 'C', modifies: ['src/c.ts'], deletes: ['src/old/']}
])
const owners = ownershipMap(plan)
const ignore = {planFile: 'plan.md'}

let repo: TempRepo
beforeAll(isolateGitConfig)
afterEach(() => repo?.cleanup())

async function snapshot(root: string): Promise<Snapshot> {
  const result = await takeSnapshot(root, ignore)
  if (!result.ok) throw new Error(result.reason)
  return result.snapshot
}

async function changed(before: Snapshot): Promise<string[]> {
  const result = await changedSince(before, ignore)
  if (!result.ok) throw new Error(result.reason)
  return result.paths
}

describe('outside a git repository', () => {
  it('says so in one line', async () => {
    const dir = await tempDir()
    expect(await isGitRepo(dir)).toBe(false)
    expect(await gitRoot(dir)).toBeUndefined()
    expect(await isGitRepo(join(dir, 'missing'))).toBe(false)
    expect(notGitRepoMessage).toBe('git: not a git repository, skipping scope checks, worktrees and commits')
    await rm(dir, {recursive: true})
  })

  it('knows a repository and the folder inside it', async () => {
    repo = await tempRepo({'pkg/web/x.txt': 'x\n'})
    expect(await isGitRepo(join(repo.root, 'pkg/web'))).toBe(true)
    expect(await gitRoot(join(repo.root, 'pkg/web'))).toEqual({root: expect.any(String), prefix: 'pkg/web/'})
  })
})

describe('changedSince', () => {
  it('sees edits, new files, deletions and commits made during the window, not what was dirty before', async () => {
    repo = await tempRepo({'src/c.ts': 'c\n', 'src/old/x.ts': 'x\n', 'keep.txt': 'k\n', 'plan.md': '# plan\n'})
    await repo.write('dirty-before.txt', 'left by the person\n')
    await repo.write('keep.txt', 'edited before launch\n')
    const before = await snapshot(repo.root)
    expect([...before.dirty.keys()].sort()).toEqual(['dirty-before.txt', 'keep.txt'])

    await repo.write('src/a.ts', 'new\n')
    await repo.write('src/c.ts', 'changed\n')
    await rm(join(repo.root, 'src/old/x.ts'))
    await repo.write('plan.md', '# plan\n| A | in_progress |\n')
    await repo.write('.mdplan/logs/A.log', 'log\n')
    await repo.write('plan.md.lock/pid', '123\n')
    expect(await changed(before)).toEqual(['src/a.ts', 'src/c.ts', 'src/old/x.ts'])
  })

  it('counts a file that was dirty at launch only when its content changed again', async () => {
    repo = await tempRepo({'src/c.ts': 'c\n'})
    await repo.write('src/c.ts', 'person edit\n')
    const before = await snapshot(repo.root)
    expect(await changed(before)).toEqual([])
    await repo.write('src/c.ts', 'agent edit\n')
    expect(await changed(before)).toEqual(['src/c.ts'])
  })

  it('sees what an agent committed itself', async () => {
    repo = await tempRepo()
    const before = await snapshot(repo.root)
    await repo.commit('agent commit', {'src/b.ts': 'b\n'})
    await repo.write('src/a.ts', 'a\n')
    const result = await changedSince(before, ignore)
    expect(result.ok && result.paths).toEqual(['src/a.ts', 'src/b.ts'])
    expect(result.ok && result.after.head).toBe(await headSha(repo.root))
  })

  it('keeps odd file names intact', async () => {
    repo = await tempRepo({'docs/ünï côde.md': 'u\n'})
    const before = await snapshot(repo.root)
    await repo.commit('with a tab', {'docs/tab\there.md': 't\n'})
    await repo.write('docs/ünï côde.md', 'changed\n')
    await repo.write('app/api/[id]/route "x".ts', 'r\n')
    expect([...(await snapshot(repo.root)).dirty.keys()].sort()).toEqual(['app/api/[id]/route "x".ts', 'docs/ünï côde.md'])
    expect(await changed(before)).toEqual(['app/api/[id]/route "x".ts', 'docs/tab\there.md', 'docs/ünï côde.md'])
  })

  it('works before the first commit', async () => {
    const dir = await tempDir()
    const {execa} = await import('execa')
    await execa('git', ['init', '--quiet', '-b', 'main'], {cwd: dir})
    const before = await snapshot(dir)
    expect(before.head).toBeUndefined()
    await execa('sh', ['-c', 'echo a > a.txt'], {cwd: dir})
    const result = await changedSince(before, ignore)
    expect(result.ok && result.paths).toEqual(['a.txt'])
    await rm(dir, {recursive: true})
  })
})

describe('scope checks after an agent completes', () => {
  it('notes a scope violation: the agent ran alone and touched a file another agent owns', async () => {
    repo = await tempRepo({'src/c.ts': 'c\n', 'plan.md': '# plan\n'})
    const before = await snapshot(repo.root)
    // Agent A does its own work and also edits C's file.
    await repo.write('src/a.ts', 'export const a = 1\n')
    await repo.write('src/c.ts', 'c, edited by A\n')

    const result = attributeChanges({agent: 'A', changed: await changed(before), owners, running: ['A']})
    expect(result.own).toEqual(['src/a.ts'])
    expect(result.violations).toEqual([{path: 'src/c.ts', owner: 'C'}])
    expect(setNote('', 'scope', formatScopeNote(result.violations))).toBe('scope: touched src/c.ts (owned by C)')
  })

  it('collects an undeclared change', async () => {
    repo = await tempRepo()
    const before = await snapshot(repo.root)
    await repo.write('src/a.ts', 'a\n')
    await repo.write('docs/notes.md', 'stray\n')

    const result = attributeChanges({agent: 'A', changed: await changed(before), owners, running: ['A']})
    expect(result).toEqual({own: ['src/a.ts'], violations: [], undeclared: ['docs/notes.md'], unattributed: []})
  })

  it('with two agents in one tree, attributes what it can and says what it cannot', async () => {
    repo = await tempRepo({'src/c.ts': 'c\n'})
    const beforeA = await snapshot(repo.root)
    const beforeB = await snapshot(repo.root)
    await repo.write('src/a.ts', 'a\n')
    await repo.write('src/b.ts', 'b\n')
    await repo.write('src/c.ts', 'who did this?\n')

    const a = attributeChanges({agent: 'A', changed: await changed(beforeA), owners, running: ['A', 'B']})
    expect(a).toEqual({own: ['src/a.ts'], violations: [], undeclared: [], unattributed: [{path: 'src/c.ts', candidates: ['A', 'B']}]})
    const b = attributeChanges({agent: 'B', changed: await changed(beforeB), owners, running: ['A', 'B']})
    expect(b.own).toEqual(['src/b.ts'])
    expect(b.violations).toEqual([])
  })
})

describe('resume', () => {
  it('finds files an agent declares that changed since its base', async () => {
    repo = await tempRepo({'src/c.ts': 'c\n', 'src/a.ts': 'a\n'})
    const base = shortSha((await headSha(repo.root))!)
    const cell = setNote('', 'base', base)
    expect(cell).toMatch(/^base: [0-9a-f]{12}$/)

    // While C was in progress (and the run crashed), someone committed to its file and left another edit uncommitted.
    await repo.commit('someone else', {'src/c.ts': 'changed by someone\n'})
    await repo.write('src/old/new.ts', 'x\n')
    await repo.write('src/a.ts', 'not C’s\n')

    const conflicts = await resumeConflicts({root: repo.root, agent: 'C', base: getNote(cell, 'base')!, owners, ignore})
    expect(conflicts).toEqual({ok: true, base: expect.stringMatching(/^[0-9a-f]{40}$/), committed: ['src/c.ts'], uncommitted: ['src/old/new.ts']})
    expect(formatResumeConflicts('C', conflicts)).toBe(
      `C: since its base ${base}, files it declares changed: src/c.ts (committed), src/old/new.ts (uncommitted)`
    )

    const quiet = await resumeConflicts({root: repo.root, agent: 'B', base, owners, ignore})
    expect(formatResumeConflicts('B', quiet)).toBeUndefined()
  })

  it('says when the recorded base is not a commit', async () => {
    repo = await tempRepo()
    const conflicts = await resumeConflicts({root: repo.root, agent: 'C', base: 'deadbeef0000', owners})
    expect(conflicts).toEqual({ok: false, reason: 'base deadbeef0000 is not a commit in this repository'})
    expect(formatResumeConflicts('C', conflicts)).toBe('C: cannot check changes since its base: base deadbeef0000 is not a commit in this repository')
  })
})
