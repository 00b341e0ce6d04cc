import {rm} from 'node:fs/promises'
import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {attributeChanges} from '../../../src/git/attribute-changes.js'
import {changedSince} from '../../../src/git/changed-since.js'
import {commitAgent} from '../../../src/git/commit-agent.js'
import {commitMessage} from '../../../src/git/commit-message.js'
import {shortSha} from '../../../src/git/head-sha.js'
import {ownershipMap} from '../../../src/git/ownership-map.js'
import {takeSnapshot} from '../../../src/git/take-snapshot.js'
import {getNote, setNote} from '../../../src/plan/notes.js'
import {fakePlan} from '../../helpers/git-plan.js'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'

const plan = fakePlan(
  [
    {id: 'A', name: 'types', creates: ['src/a.ts', 'app/api/[id]/route.ts'], modifies: ['src/shared.ts'], deletes: ['src/old.ts']},
    {id: 'B', name: 'api', creates: ['src/b.ts']}
  ],
  'Add auth'
)
const owners = ownershipMap(plan)
const ignore = {planFile: 'plan.md'}

let repo: TempRepo
beforeAll(isolateGitConfig)
afterEach(() => repo?.cleanup())

/** What an agent's window changed and which of it is the agent's, as the executor computes it. */
async function ownChanges(agent: string, running: string[], work: () => Promise<void>): Promise<string[]> {
  const before = await takeSnapshot(repo.root, ignore)
  if (!before.ok) throw new Error(before.reason)
  await work()
  const changed = await changedSince(before.snapshot, ignore)
  if (!changed.ok) throw new Error(changed.reason)
  return attributeChanges({agent, changed: changed.paths, owners, running}).own
}

describe('commit: true', () => {
  it('commits exactly the files each agent changed, deletions included, and records the commit', async () => {
    repo = await tempRepo({'src/shared.ts': 'shared\n', 'src/old.ts': 'old\n', 'plan.md': '# plan\n'})
    // Things that are not A's: a person's staged file, B's work in progress, mdplan's own plan edit.
    await repo.write('notes.txt', 'mine\n')
    await repo.git('add', 'notes.txt')

    const own = await ownChanges('A', ['A', 'B'], async () => {
      await repo.write('src/a.ts', 'a\n')
      await repo.write('src/shared.ts', 'shared, by A\n')
      await repo.write('app/api/[id]/route.ts', 'route\n')
      await repo.write('app/api/i/route.ts', 'not declared\n')
      await rm(join(repo.root, 'src/old.ts'))
      await repo.write('src/b.ts', 'B, still working\n')
      await repo.write('plan.md', '# plan\n| A | completed |\n')
    })
    expect(own).toEqual(['app/api/[id]/route.ts', 'src/a.ts', 'src/old.ts', 'src/shared.ts'])

    const result = await commitAgent({root: repo.root, paths: own, message: commitMessage(plan.title!, plan.agents[0]!)})
    expect(result).toEqual({ok: true, commit: expect.stringMatching(/^[0-9a-f]{40}$/)})
    const sha = result.ok ? result.commit! : ''
    expect(await repo.git('rev-parse', 'HEAD')).toBe(sha)
    expect(await repo.git('show', '--format=%s%n%an <%ae>', '--name-status', 'HEAD')).toBe(
      ['Add auth · A: types', 'mdplan <mdplan@localhost>', '', 'A\tapp/api/[id]/route.ts', 'A\tsrc/a.ts', 'D\tsrc/old.ts', 'M\tsrc/shared.ts'].join('\n')
    )
    // Everything else is as it was.
    expect((await repo.git('status', '--porcelain', '--untracked-files=all')).split('\n')).toEqual(['A  notes.txt', ' M plan.md', '?? app/api/i/route.ts', '?? src/b.ts'])

    const notes = setNote('', 'commit', shortSha(sha))
    expect(getNote(notes, 'commit')).toBe(sha.slice(0, 12))

    // B finishes next and gets its own commit.
    const second = await commitAgent({root: repo.root, paths: ['src/b.ts'], message: commitMessage(plan.title!, plan.agents[1]!)})
    expect(second.ok && second.commit).not.toBe(sha)
    expect(await repo.git('log', '--format=%s', '-2')).toBe('Add auth · B: api\nAdd auth · A: types')
    expect(await repo.git('show', '--format=', '--name-only', 'HEAD')).toBe('src/b.ts')
  })

  it('commits nothing when the agent changed nothing, or only made and removed a file', async () => {
    repo = await tempRepo({'src/shared.ts': 'shared\n'})
    const head = await repo.git('rev-parse', 'HEAD')
    expect(await commitAgent({root: repo.root, paths: [], message: 'x'})).toEqual({ok: true})
    expect(await commitAgent({root: repo.root, paths: ['src/gone.ts', 'src/shared.ts'], message: 'x'})).toEqual({ok: true})
    expect(await repo.git('rev-parse', 'HEAD')).toBe(head)
  })

  it('commits a deletion the agent already staged with `git rm`', async () => {
    repo = await tempRepo({'src/old.ts': 'old\n', 'src/keep.ts': 'k\n'})
    await repo.git('rm', '--quiet', 'src/old.ts')
    const result = await commitAgent({root: repo.root, paths: ['src/old.ts'], message: 'remove old'})
    expect(result.ok && result.commit).toBeTruthy()
    expect(await repo.git('show', '--format=', '--name-status', 'HEAD')).toBe('D\tsrc/old.ts')
  })

  it('uses the configured identity when there is one', async () => {
    repo = await tempRepo()
    await repo.git('config', 'user.name', 'Dana')
    await repo.git('config', 'user.email', 'dana@example.com')
    await repo.write('src/a.ts', 'a\n')
    const result = await commitAgent({root: repo.root, paths: ['src/a.ts'], message: 'A'})
    expect(result.ok).toBe(true)
    expect(await repo.git('log', '-1', '--format=%an <%ae> / %cn <%ce>')).toBe('Dana <dana@example.com> / Dana <dana@example.com>')
  })

  it('waits for an index.lock another process holds briefly', async () => {
    repo = await tempRepo()
    await repo.write('src/a.ts', 'a\n')
    const {writeFile, unlink} = await import('node:fs/promises')
    const lock = join(repo.root, '.git/index.lock')
    await writeFile(lock, '')
    setTimeout(() => void unlink(lock), 200)
    const result = await commitAgent({root: repo.root, paths: ['src/a.ts'], message: 'A'})
    expect(result.ok && result.commit).toBeTruthy()
  })

  it('reports a failing commit as a value', async () => {
    repo = await tempRepo()
    await repo.write('src/a.ts', 'a\n')
    await repo.write('.git/hooks/pre-commit', '#!/bin/sh\necho "lint failed" >&2\nexit 1\n')
    const {chmod} = await import('node:fs/promises')
    await chmod(join(repo.root, '.git/hooks/pre-commit'), 0o755)
    const result = await commitAgent({root: repo.root, paths: ['src/a.ts'], message: 'A'})
    expect(result).toEqual({ok: false, reason: 'git commit: lint failed'})
  })
})
