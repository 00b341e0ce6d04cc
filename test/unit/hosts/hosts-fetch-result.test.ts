import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {fetchResult} from '../../../src/hosts/fetch-result.js'
import {isolateGitConfig, tempDir, tempRepo, type TempRepo} from '../../helpers/git-repo.js'

/** Fencing: a result bundle is taken only as the work of the key its commit's `Mdplan-Key:` line names, whole. */
let repos: TempRepo[] = []
beforeAll(isolateGitConfig)
afterEach(async () => {
  for (const repo of repos) await repo.cleanup()
  repos = []
})

async function bundleFor(trailerKey: string): Promise<{root: string; file: string; base: string}> {
  const home = await tempRepo()
  const remote = await tempRepo()
  repos.push(home, remote)
  const base = (await home.git('rev-parse', 'HEAD')).trim()
  // The job's clone: the base, then the agent's commit on its branch.
  await remote.git('fetch', '-q', home.root, 'main:refs/heads/mdplan/plan/A')
  await remote.git('checkout', '-q', 'mdplan/plan/A')
  await remote.commit(`test · A: a\n\nMdplan-Key: ${trailerKey}`, {'a.txt': 'a\n'})
  const file = join(await tempDir(), 'result.bundle')
  await remote.git('bundle', 'create', file, 'mdplan/plan/A', `^${base}`)
  return {root: home.root, file, base}
}

describe('fetchResult', () => {
  it('takes the work of its own key', async () => {
    const {root, file, base} = await bundleFor('mdplan4-plan-A-a1-abc123')
    expect(await fetchResult({root, file, base, key: 'mdplan4-plan-A-a1-abc123', branch: 'mdplan/plan/A'})).toMatchObject({ok: true})
  })

  it('refuses the work of a key that merely begins with its own (agent `A-a1-abc123`, attempt 2)', async () => {
    const {root, file, base} = await bundleFor('mdplan4-plan-A-a1-abc123-a2-def456')
    expect(await fetchResult({root, file, base, key: 'mdplan4-plan-A-a1-abc123', branch: 'mdplan/plan/A'})).toEqual({
      ok: false,
      reason: 'the result on mdplan/plan/A is not the work of mdplan4-plan-A-a1-abc123'
    })
  })
})
