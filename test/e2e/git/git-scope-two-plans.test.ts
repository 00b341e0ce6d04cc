import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {readTable, shellPlan, startCli} from '../../helpers/run-cli.js'

/**
 * Two plans run at once in one repository (two terminals): each run rewrites its own table as its
 * agents go, inside the other run's agents' windows. The other plan's file is no agent's change: the
 * end-of-run scope report must not list it as a file no agent declares. A's agent ends only once B's
 * table says B completed, so B's run has written its plan during A's window every time.
 */
let repo: TempRepo | undefined
beforeAll(isolateGitConfig)
afterEach(async () => {
  await repo?.cleanup()
  repo = undefined
})

describe('two plans running at once in one repository', () => {
  it("neither run's scope report names the other's plan file; each agent once", async () => {
    repo = await tempRepo({'README.md': '# test\n'})
    const log = join(repo.root, '..', `${repo.root.split('/').pop()}-agents.log`)
    const done = (plan: string, id: string): string => `until grep -Eq '^[|] *${id} *[|] *completed' ${plan}; do sleep 0.05; done`
    const a = shellPlan({P: {creates: ['p.txt'], script: logged(log, `touch ../p-started; ${done('b.md', 'Q')}; echo p > p.txt`)}})
    const b = shellPlan({Q: {creates: ['q.txt'], script: logged(log, 'until [ -f ../p-started ]; do sleep 0.05; done; echo q > q.txt')}})
    await repo.commit('plans', {'plans/a.md': a, 'plans/b.md': b})
    const cwd = join(repo.root, 'plans')
    const [first, second] = await Promise.all([startCli(['run', 'a.md'], {cwd}), startCli(['run', 'b.md'], {cwd})])
    expect(first.exitCode, first.all).toBe(0)
    expect(second.exitCode, second.all).toBe(0)
    expect(first.all).not.toMatch(/no agent declares[^\n]*b\.md/)
    expect(second.all).not.toMatch(/no agent declares[^\n]*a\.md/)
    expect((await readTable(join(cwd, 'a.md'))).rows.P!.status).toBe('completed')
    expect((await readTable(join(cwd, 'b.md'))).rows.Q!.status).toBe('completed')
    const side = await readAgentLog(log)
    expect([...side.starts.entries()].sort()).toEqual([['P#1', 1], ['Q#1', 1]])
  }, 60_000)
})
