import {existsSync} from 'node:fs'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan, startCli} from '../../helpers/run-cli.js'
import {duplicates, logged, readAgentLog} from '../../helpers/agent-log.js'
import {sshdMissing, startSshd, type SshdFixture} from '../../helpers/sshd.js'

// What an agent does with git on an ssh host (a real sshd on 127.0.0.1) comes back as its work: commits of its
// own, an amend, a switch to another branch. A commit the job cannot make is a failed attempt, never "no change".

const missing = sshdMissing()
if (missing) console.log(`hosts-ssh-agent-git: skipped: ${missing}`)

const gitEnv = () => ({GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'})

let sshd: SshdFixture
beforeAll(async () => {
  await isolateGitConfig()
  if (!missing) sshd = await startSshd(1)
}, 30_000)
afterAll(() => sshd?.close())

function front(extra: string[] = []): string {
  const h = sshd.hosts[0]!
  return ['commit: true', 'hosts:', `  ${h.alias}: {type: ssh, address: ${h.alias}, config: '${sshd.config}', dir: '${h.dir}', slots: 4}`, `host: ${h.alias}`, ...extra].join('\n')
}

const commit = (message: string) => `git -c user.name=agent -c user.email=agent@example.com commit -q -m '${message}'`

describe.skipIf(missing !== undefined)('an agent\'s own git work on an ssh host', () => {
  it('commits of its own, an amend, a removal committed, a switch to another branch: each merged on main, each agent once', async () => {
    const log = join(await mkdtemp(join(tmpdir(), 'mdplan-agent-git-')), 'agents.log')
    const repo = await tempRepo({'README.md': '# test\n', 'old.txt': 'old\n'})
    const agents = {
      A: {creates: ['a.txt'], script: logged(log, `echo a > a.txt\ngit add a.txt\n${commit('A by itself')}`)},
      B: {creates: ['b.txt'], script: logged(log, `echo b1 > b.txt\ngit add b.txt\n${commit('B first')}\necho b2 > b.txt\ngit add b.txt\ngit -c user.name=agent -c user.email=agent@example.com commit -q --amend -m 'B amended'`)},
      C: {script: logged(log, `git rm -q old.txt\n${commit('C removes')}`)},
      D: {creates: ['d.txt'], script: logged(log, `git checkout -q -b elsewhere\necho d > d.txt`)}
    }
    await repo.commit('plan', {'plan.md': shellPlan(agents, {frontMatter: ['concurrency: 4', front()].join('\n')})})
    const result = await runCli(['run', 'plan.md', '--max-attempts', '1'], {cwd: repo.root, env: gitEnv()})
    expect(result.exitCode, result.all).toBe(0)
    const side = await readAgentLog(log)
    expect(duplicates(side)).toEqual([])
    expect([...side.starts.keys()].sort()).toEqual(['A#1', 'B#1', 'C#1', 'D#1'])
    expect(await repo.read('a.txt')).toBe('a\n')
    expect(await repo.read('b.txt')).toBe('b2\n')
    expect(existsSync(join(repo.root, 'old.txt'))).toBe(false)
    expect(await repo.read('d.txt')).toBe('d\n')
    const rows = (await readTable(join(repo.root, 'plan.md'))).rows
    for (const id of ['A', 'B', 'C', 'D']) expect(rows[id]!.notes, id).toMatch(/commit: [0-9a-f]{12}/)
  }, 120_000)

  it('a job whose cache goes away under it fails its attempt (its work could not be committed) and the retry does the work', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-agent-git-'))
    const log = join(dir, 'agents.log')
    const go = join(dir, 'go')
    const repo = await tempRepo()
    // The first attempt waits until the test has removed the host's cache; the second does not wait.
    const script = logged(log, `[ "$MDPLAN_ATTEMPT" = 1 ] && while [ ! -f '${go}' ]; do sleep 0.05; done\necho a > a.txt`)
    await repo.commit('plan', {'plan.md': shellPlan({A: {creates: ['a.txt'], script}}, {frontMatter: front()})})
    const run = startCli(['run', 'plan.md', '--max-attempts', '2'], {cwd: repo.root, env: gitEnv()})
    for (let waited = 0; !existsSync(log); waited += 50) {
      if (waited > 60_000) throw new Error('A never started')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    await rm(join(sshd.hosts[0]!.dir, 'cache.git'), {recursive: true, force: true})
    await writeFile(go, '')
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    const side = await readAgentLog(log)
    expect([...side.starts.keys()].sort()).toEqual(['A#1', 'A#2'])
    const row = (await readTable(join(repo.root, 'plan.md'))).rows.A!
    expect(row.status).toBe('completed')
    expect(row.notes).toMatch(/attempt 1: /)
    expect(row.notes).toMatch(/commit: [0-9a-f]{12}/)
    expect(await repo.read('a.txt')).toBe('a\n')
  }, 120_000)
})
