import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {installMergeDriver} from '../../../src/init/install-merge-driver.js'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {bin, readTable, shellPlan} from '../../helpers/run-cli.js'

let repos: TempRepo[] = []
beforeAll(isolateGitConfig)
afterEach(async () => {
  await Promise.all(repos.map((repo) => repo.cleanup()))
  repos = []
})

const base = shellPlan({A: {script: 'true'}, B: {deps: ['A'], script: 'true'}, C: {deps: ['A'], script: 'true'}, E: {deps: ['B'], script: 'true'}, F: {deps: ['C'], script: 'true'}})
const rows = (text: string, changes: Record<string, string>): string =>
  Object.entries(changes).reduce((out, [agent, row]) => out.replace(new RegExp(`^\\| ${agent} \\|[^\\n]*$`, 'm'), `| ${agent} | ${row} |`), text)
const failed = 'failed | sh-b3 | 5s | attempt 1: x; attempt 2: x; attempt 3: x'

describe('the merge driver recomputes notes derived from other rows', () => {
  it('`blocked by: B (failed)` goes when B completed on the other branch; one still true stays', async () => {
    const repo = await tempRepo({'.gitattributes': 'plans/*.md merge=mdplan\n', 'plans/plan.md': rows(base, {A: 'completed | sh-a | 1s | '})})
    repos.push(repo)
    await installMergeDriver({root: repo.root, command: `"${process.execPath}" "${bin}"`})
    const start = await repo.read('plans/plan.md')
    await repo.git('checkout', '--quiet', '-b', 'theirs')
    await repo.commit('theirs: B completed', {'plans/plan.md': rows(start, {B: 'completed | sh-b9 | 7s | result: ok'})})
    await repo.git('checkout', '--quiet', 'main')
    // As a run on main left it: B and C failed for good, E and F blocked by them.
    await repo.commit('ours: B, C failed', {
      'plans/plan.md': rows(start, {B: failed, C: failed.replace('sh-b3', 'sh-c3'), E: 'pending | — | — | blocked by: B (failed)', F: 'pending | — | — | blocked by: C (failed)'})
    })
    await repo.git('merge', '--no-edit', 'theirs')
    const table = await readTable(`${repo.root}/plans/plan.md`)
    expect(table.rows.B).toMatchObject({status: 'completed', agentId: 'sh-b9'})
    expect(table.rows.B!.notes).toContain('attempt 3: x')
    expect(table.rows.E).toMatchObject({status: 'pending', notes: ''})
    expect(table.rows.F).toMatchObject({status: 'pending', notes: 'blocked by: C (failed)'})
  })
})
