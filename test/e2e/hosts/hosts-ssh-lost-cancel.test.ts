import {writeFileSync} from 'node:fs'
import {mkdtemp} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempRepo} from '../../helpers/git-repo.js'
import {readTable, shellPlan, startCli} from '../../helpers/run-cli.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {sshdSuite, waitFor} from '../../helpers/sshd-suite.js'

/**
 * A host that goes dark past its lease and comes back while the lost attempt's retry runs elsewhere (a real
 * sshd on 127.0.0.1: the listener and its sessions killed, the detached job left running, as a network cut
 * leaves it). Before, the lost job ran on to its end beside the retry (its result never merged, its folder
 * swept only at the end): two copies of the agent at once. The lost key is cancelled as soon as its host
 * answers again.
 */
const {missing, gates, gitEnv, fixture, jobFolders} = sshdSuite('hosts-ssh-lost-cancel', 2)

describe.skipIf(missing !== undefined)('a lost attempt\'s job, once its host is back', () => {
  it('is cancelled while the retry still runs on the other host: never two copies at once, its folder gone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-lost-cancel-'))
    const log = join(dir, 'agents.log')
    const go = join(dir, 'go')
    gates.push(go)
    const [h1, h2] = fixture().hosts
    const host = (h: typeof h1) => `  ${h!.alias}: {type: ssh, address: ${h!.alias}, config: '${fixture().config}', dir: '${h!.dir}', slots: 1, lease: 3s}`
    // h2 first in the pool: B's first attempt goes there.
    const front = ['hosts:', host(h1), host(h2), 'host: [h2, h1]'].join('\n')
    const repo = await tempRepo()
    await repo.commit('plan', {'plan.md': shellPlan({B: {script: logged(log, `while [ ! -f '${go}' ]; do sleep 0.05; done\necho B > B.txt`), creates: ['B.txt']}}, {frontMatter: front})})
    const plan = join(repo.root, 'plan.md')
    const run = startCli(['run', plan], {cwd: repo.root, env: gitEnv()})
    await waitFor('B to start on h2', async () => (await readAgentLog(log)).starts.has('B#1'))
    const key = /job: h2 (mdplan[^\s;]+)/.exec((await readTable(plan)).rows.B!.notes)?.[1]
    expect(key).toBeDefined()
    await h2!.stop()
    await waitFor('the retry on h1', async () => (await readAgentLog(log)).starts.has('B#2'))
    await h2!.start()
    // Back, while the retry waits for `go`: the lost job is ended and its folder removed.
    await waitFor('the lost job to be cancelled on h2', async () => !(await jobFolders(1)).includes(key!), 40_000)
    expect((await readAgentLog(log)).unfinished.sort()).toEqual(['B#1', 'B#2'])
    expect(run.exitCode).toBeNull()
    writeFileSync(go, '')
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    const side = await readAgentLog(log)
    // B#1 never wrote its end: it was ended, not run to its end beside B#2.
    expect(side.lines.filter((line) => line.startsWith('end ')).map((line) => line.split(' ').slice(1, 3).join('#')), side.lines.join('\n')).toEqual(['B#2'])
    const {rows} = await readTable(plan)
    expect(rows.B!.status).toBe('completed')
    expect(rows.B!.notes).toContain('attempt 1: host lost: h2')
    expect(rows.B!.notes).toContain('host: h1')
    expect(await jobFolders(0)).toEqual([])
    expect(await jobFolders(1)).toEqual([])
    await repo.cleanup()
  }, 120_000)
})
