import {describe, expect, it} from 'vitest'
import {attributeChanges} from '../../../src/git/attribute-changes.js'
import {commitMessage} from '../../../src/git/commit-message.js'
import {formatScopeNote} from '../../../src/git/format-scope-note.js'
import {formatScopeReport} from '../../../src/git/format-scope-report.js'
import {createMutex} from '../../../src/git/git-mutex.js'
import {isIgnoredPath} from '../../../src/git/ignored-path.js'
import {mergeOrder} from '../../../src/git/merge-order.js'
import {ownershipMap, ownersOf} from '../../../src/git/ownership-map.js'
import {normalizePath, pathMatches} from '../../../src/git/path-matches.js'
import {runningWindows} from '../../../src/git/running-windows.js'
import {planSlug, worktreeNames} from '../../../src/layout/worktree-names.js'
import {setNote} from '../../../src/plan/notes.js'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {fakePlan} from '../../helpers/git-plan.js'

describe('pathMatches', () => {
  it.each([
    ['src/x.ts', 'src/x.ts', true],
    ['./src/x.ts', 'src/x.ts', true],
    ['src/x.ts', 'src/x.tsx', false],
    ['src/lib/', 'src/lib/a.ts', true],
    ['src/lib', 'src/lib/deep/a.ts', true],
    ['src/lib', 'src/library.ts', false],
    ['src/*.ts', 'src/a.ts', true],
    ['src/*.ts', 'src/sub/a.ts', false],
    ['test/**', 'test/a/b/c.ts', true],
    ['src/**/*.test.ts', 'src/a.test.ts', true],
    ['src/**/*.test.ts', 'src/a/b.test.ts', true],
    ['app/api/[id]/route.ts', 'app/api/[id]/route.ts', true],
    ['app/api/[id]/route.ts', 'app/api/i/route.ts', false],
    ['src\\win.ts', 'src/win.ts', true],
    ['', 'src/x.ts', false]
  ])('%s covers %s: %s', (declared, path, expected) => {
    expect(pathMatches(declared, path)).toBe(expected)
  })

  it('normalizes', () => {
    expect(normalizePath('././src//a.ts')).toBe('src/a.ts')
    expect(normalizePath('.')).toBe('')
  })
})

describe('ownershipMap', () => {
  const plan = fakePlan([
    {id: 'A', creates: ['src/types.ts']},
    {id: 'B', creates: ['app/api/[id]/route.ts'], modifies: ['src/db.ts', './src/types.ts']},
    {id: 'C', deletes: ['old/'], modifies: ['src/db.ts']}
  ])

  it('maps every declared path to its agents in plan order', () => {
    expect(ownershipMap(plan)).toEqual(
      new Map([
        ['src/types.ts', ['A', 'B']],
        ['app/api/[id]/route.ts', ['B']],
        ['src/db.ts', ['B', 'C']],
        ['old/', ['C']]
      ])
    )
  })

  it('reads what a real plan declares', () => {
    const parsed = parsePlan(
      [
        '# Parallel Plan: Auth',
        '',
        '## Agents',
        '',
        '### A: types',
        '- **creates**: [`src/lib/types.ts`]',
        '- **modifies**: []',
        '- **prompt**: |',
        '    Do it.',
        '',
        '### B: api',
        '- **depends_on**: [A]',
        '- **creates**: [app/api/[id]/route.ts, src/components/ErrorBoundary.tsx (if no ErrorBoundary exists)]',
        '- **modifies**: [`src/lib/types.ts`]',
        '- **deletes**: [`src/legacy/`]',
        '- **prompt**: |',
        '    Do it.',
        ''
      ].join('\n'),
      'plan.md'
    )
    expect(ownershipMap(parsed)).toEqual(
      new Map([
        ['src/lib/types.ts', ['A', 'B']],
        ['app/api/[id]/route.ts', ['B']],
        ['src/components/ErrorBoundary.tsx', ['B']],
        ['src/legacy/', ['B']]
      ])
    )
  })

  it('prefixes paths when the plan runs in a subfolder of the repository', () => {
    expect([...ownershipMap(plan, 'packages/web/').keys()]).toContain('packages/web/src/db.ts')
  })

  it('finds owners through folders', () => {
    const map = ownershipMap(plan)
    expect(ownersOf('old/a/b.js', map)).toEqual(['C'])
    expect(ownersOf('src/db.ts', map)).toEqual(['B', 'C'])
    expect(ownersOf('src/other.ts', map)).toEqual([])
  })
})

describe('attributeChanges', () => {
  const owners = ownershipMap(
    fakePlan([
      {id: 'A', creates: ['src/a.ts']},
      {id: 'B', creates: ['src/b.ts']},
      {id: 'C', modifies: ['src/c.ts']},
      {id: 'D', modifies: ['src/shared.ts']},
      {id: 'E', modifies: ['src/shared.ts']}
    ])
  )

  it('alone: its own files, violations and undeclared files', () => {
    const result = attributeChanges({agent: 'A', changed: ['src/a.ts', 'src/c.ts', 'notes.txt'], owners, running: ['A']})
    expect(result).toEqual({
      own: ['src/a.ts'],
      violations: [{path: 'src/c.ts', owner: 'C'}],
      undeclared: ['notes.txt'],
      unattributed: []
    })
  })

  it('a file of another running agent is that agent’s, not a violation', () => {
    const result = attributeChanges({agent: 'A', changed: ['src/a.ts', 'src/b.ts'], owners, running: ['A', 'B']})
    expect(result).toEqual({own: ['src/a.ts'], violations: [], undeclared: [], unattributed: []})
  })

  it('with several running, a file of an idle agent cannot be attributed', () => {
    const result = attributeChanges({agent: 'A', changed: ['src/c.ts'], owners, running: ['A', 'B']})
    expect(result.violations).toEqual([])
    expect(result.unattributed).toEqual([{path: 'src/c.ts', candidates: ['A', 'B']}])
  })

  it('a shared file counts as its own', () => {
    expect(attributeChanges({agent: 'E', changed: ['src/shared.ts'], owners, running: ['E']}).own).toEqual(['src/shared.ts'])
  })

  it('names every owner of a file owned by several idle agents', () => {
    const result = attributeChanges({agent: 'A', changed: ['src/shared.ts'], owners, running: []})
    expect(result.violations).toEqual([{path: 'src/shared.ts', owner: 'D, E'}])
  })
})

describe('notes and reports', () => {
  it('keeps the scope note short', () => {
    expect(formatScopeNote([])).toBeUndefined()
    expect(formatScopeNote([{path: 'src/x.ts', owner: 'C'}])).toBe('touched src/x.ts (owned by C)')
    const many = ['a', 'b', 'c', 'd', 'e'].map((path) => ({path, owner: 'C'}))
    expect(formatScopeNote(many)).toBe('touched a (owned by C), b (owned by C), c (owned by C) +2 more')
    expect(setNote('attempt 1: flaky', 'scope', formatScopeNote([{path: 'src/x.ts', owner: 'C'}]))).toBe(
      'attempt 1: flaky; scope: touched src/x.ts (owned by C)'
    )
  })

  it('reports undeclared and unattributed changes once', () => {
    expect(
      formatScopeReport(['b.txt', 'a.txt', 'b.txt'], [
        {path: 'src/c.ts', candidates: ['A', 'B']},
        {path: 'src/c.ts', candidates: ['B', 'D']}
      ])
    ).toEqual(['scope: 2 changed files no agent declares: a.txt, b.txt', 'scope: src/c.ts changed while A, B, D ran; cannot tell which'])
    expect(formatScopeReport([], [])).toEqual([])
  })

  it('formats commit messages', () => {
    expect(commitMessage('Add auth', {id: 'B2', name: 'api'})).toBe('Add auth · B2: api')
  })
})

describe('isIgnoredPath', () => {
  it.each([
    ['.mdplan/logs/a.log', true],
    ['packages/web/.mdplan/logs/plan/A.1.log', true],
    ['plans/auth.md', true],
    ['plans/auth.md.lock/pid', true],
    ['plans/auth.md.3456789', true],
    // The store's temp file, as atomicWrite names it.
    ['plans/.auth.md.4242.7.mdplan-tmp', true],
    ['plans/other.md', false],
    ['yarn.lock', false],
    ['Cargo.lock', false],
    ['tmp/x.lock/owner', true],
    // Another plan's write mutex, caught while its run writes.
    ['plans/other.md.write-lock', true],
    ['plans/other.md.write-lock/owner', true],
    ['src/a.ts', false]
  ])('%s: %s', (path, expected) => {
    expect(isIgnoredPath(path, {planFile: 'plans/auth.md'})).toBe(expected)
  })

  it('ignores extra folders', () => {
    expect(isIgnoredPath('logs/run1/a.log', {extra: ['logs/']})).toBe(true)
    expect(isIgnoredPath('logsx/a', {extra: ['logs']})).toBe(false)
  })
})

describe('mergeOrder', () => {
  const deps: Record<string, string[]> = {A: [], B: ['A'], C: ['A', 'B'], D: ['X'], X: []}
  const dependsOn = (id: string) => deps[id] ?? []

  it('merges a branch only after its worktree dependencies', () => {
    expect(mergeOrder({finished: ['C', 'B', 'A'], merged: new Set(), dependsOn, usesWorktree: () => true})).toEqual(['A', 'B', 'C'])
    expect(mergeOrder({finished: ['C'], merged: new Set(['A']), dependsOn, usesWorktree: () => true})).toEqual([])
    expect(mergeOrder({finished: ['C'], merged: new Set(['A', 'B']), dependsOn, usesWorktree: () => true})).toEqual(['C'])
  })

  it('does not wait for dependencies that have nothing to merge', () => {
    expect(mergeOrder({finished: ['D'], merged: new Set(), dependsOn, usesWorktree: (id) => id !== 'X'})).toEqual(['D'])
  })
})

describe('worktreeNames', () => {
  it('names branches and folders', () => {
    expect(planSlug('plans/add-auth.md')).toBe('add-auth')
    // A name that is not its own slug gets a digest of its path (`Add Auth.md` and `add-auth.md` are two plans).
    expect(planSlug('plans/Add Auth.md')).toMatch(/^add-auth---[0-9a-f]{8}$/)
    expect(planSlug('plans/---.md')).toMatch(/^plan---[0-9a-f]{8}$/)
    const names = worktreeNames('/repo', 'add-auth', 'B2')
    expect(names).toEqual({branch: 'mdplan/add-auth/B2', path: '/repo/.mdplan/worktrees/add-auth/B2', planDir: '/repo/.mdplan/worktrees/add-auth', name: 'B2'})
  })

  it('makes unsafe IDs safe for ref names', () => {
    expect(worktreeNames('/r', 's', 'a..b').name).toBe('a-b')
    expect(worktreeNames('/r', 's', 'x.lock').name).toBe('x-lock')
    expect(worktreeNames('/r', 's', 'x.').name).toBe('x-')
  })
})

describe('createMutex', () => {
  it('runs tasks one at a time, in order, past failures', async () => {
    const mutex = createMutex()
    const log: string[] = []
    let active = 0
    const task = (name: string, fail = false) =>
      mutex.run(async () => {
        active++
        expect(active).toBe(1)
        log.push(`start ${name}`)
        await new Promise((resolve) => setTimeout(resolve, 5))
        log.push(`end ${name}`)
        active--
        if (fail) throw new Error(name)
        return name
      })
    const results = await Promise.allSettled([task('a'), task('b', true), task('c')])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c'])
  })
})

describe('runningWindows', () => {
  it('lists every agent that ran during a window', () => {
    const windows = runningWindows()
    windows.launched('A')
    windows.launched('B')
    expect(windows.finished('B')).toEqual(['B', 'A'])
    windows.launched('C')
    expect(windows.finished('A')).toEqual(['A', 'B', 'C'])
    expect(windows.finished('C')).toEqual(['C', 'A'])
    windows.launched('D')
    expect(windows.finished('D')).toEqual(['D'])
    expect(windows.finished('unknown')).toEqual(['unknown'])
  })
})
