import {execa} from 'execa'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {readStatusV2, takeSnapshot} from '../../../src/git/take-snapshot.js'
import {splitNul} from '../../../src/git/run-git.js'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'

beforeAll(isolateGitConfig)

/**
 * A snapshot asks git once (issue 24): `status --porcelain=v2 --branch` names HEAD and every dirty path,
 * where it took a status and a rev-parse before. What it reads must be what the two said.
 */
describe('the snapshot reads HEAD and the dirty paths from one status', () => {
  const repos: TempRepo[] = []
  afterAll(async () => {
    for (const repo of repos) await repo.cleanup()
  })

  const v1 = async (root: string) => {
    const {stdout} = await execa('git', ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--ignore-submodules=none'], {cwd: root})
    return splitNul(stdout).map((entry) => entry.slice(3)).sort()
  }
  const v2 = async (root: string) => {
    const {stdout} = await execa('git', ['status', '--porcelain=v2', '--branch', '--no-ahead-behind', '-z', '--untracked-files=all', '--no-renames', '--ignore-submodules=none'], {cwd: root})
    return readStatusV2(stdout)
  }

  it('lists the paths v1 lists (modified, staged, deleted, renamed, untracked, spaces, a line break, unmerged) and HEAD', async () => {
    const repo = await tempRepo({'a.txt': 'a\n', 'b.txt': 'b\n', 'c d.txt': 'c\n', 'old.txt': 'old\n', 'conflict.txt': 'base\n'})
    repos.push(repo)
    // An unmerged path: the same line changed on two branches.
    await repo.git('checkout', '-q', '-b', 'other')
    await repo.commit('other', {'conflict.txt': 'theirs\n'})
    await repo.git('checkout', '-q', 'main')
    await repo.commit('mine', {'conflict.txt': 'mine\n'})
    await execa('git', ['-c', 'user.name=T', '-c', 'user.email=t@e', 'merge', 'other'], {cwd: repo.root, reject: false})
    await repo.write('a.txt', 'changed\n')
    await repo.write('c d.txt', 'changed too\n')
    await repo.git('rm', '-q', 'b.txt')
    await repo.git('mv', 'old.txt', 'new name.txt')
    await repo.write('untracked dir/x y.txt', 'new\n')
    await repo.write('line\nbreak.txt', 'odd\n')
    await repo.write('staged.txt', 'staged\n')
    await repo.git('add', 'staged.txt')
    const read = await v2(repo.root)
    expect(read.paths.sort()).toEqual(await v1(repo.root))
    expect(read.paths).toContain('conflict.txt')
    expect(read.paths).toContain('line\nbreak.txt')
    expect(read.head).toBe(await repo.git('rev-parse', 'HEAD'))
    // And the snapshot built from it.
    const snapshot = await takeSnapshot(repo.root)
    expect(snapshot.ok).toBe(true)
    if (!snapshot.ok) return
    expect(snapshot.snapshot.head).toBe(await repo.git('rev-parse', 'HEAD'))
    expect([...snapshot.snapshot.dirty.keys()].sort()).toEqual(await v1(repo.root))
    expect(snapshot.snapshot.dirty.get('b.txt')).toBe('deleted')
  })

  it('has no HEAD before the first commit, and a detached HEAD is still HEAD', async () => {
    const repo = await tempRepo()
    repos.push(repo)
    const first = await repo.git('rev-parse', 'HEAD')
    await repo.commit('second', {'x.txt': 'x\n'})
    await repo.git('checkout', '-q', '--detach', first)
    expect((await v2(repo.root)).head).toBe(first)
    await execa('git', ['init', '-q', '-b', 'main', 'fresh'], {cwd: repo.root})
    const fresh = `${repo.root}/fresh`
    await execa('sh', ['-c', 'echo hi > f.txt'], {cwd: fresh})
    const read = await v2(fresh)
    expect(read.head).toBeUndefined()
    expect(read.paths).toEqual(['f.txt'])
    const snapshot = await takeSnapshot(fresh)
    expect(snapshot.ok && snapshot.snapshot.head).toBe(undefined)
  })
})
