import {existsSync, writeFileSync} from 'node:fs'
import {mkdtemp, readdir} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan, startCli} from '../../helpers/run-cli.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {sshdMissing, startSshd, type SshdFixture} from '../../helpers/sshd.js'

/**
 * Two plans on one ssh host (a real sshd on 127.0.0.1): the sweep that removes a plan's leftover jobs at
 * the start and end of its run touches its own jobs only. Keys used to be `mdplan-<slug>-…`, so plan
 * `a`'s sweep (prefix `mdplan-a-`) listed and cancelled plan `a-b`'s running job, and `x`'s those of
 * `x/plan.md` (`x--plan`). Launches counted from the agents' side.
 */
const missing = sshdMissing()
if (missing) console.log(`trust-host-sweep: skipped: ${missing}`)

const gitEnv = () => ({GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'})

let sshd: SshdFixture
beforeAll(async () => {
  await isolateGitConfig()
  if (!missing) sshd = await startSshd(1)
}, 30_000)
afterAll(() => sshd?.close())

function front(): string {
  const h = sshd.hosts[0]!
  return ['hosts:', `  ${h.alias}: {type: ssh, address: ${h.alias}, config: '${sshd.config}', dir: '${h.dir}', slots: 2}`, `host: ${h.alias}`].join('\n')
}

async function jobFolders(): Promise<string[]> {
  const jobs = join(sshd.hosts[0]!.dir, 'jobs')
  return existsSync(jobs) ? await readdir(jobs) : []
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  for (const deadline = Date.now() + ms; !(await check()); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe.skipIf(missing !== undefined)('two plans on one host: a sweep touches its own plan\'s jobs only', () => {
  for (const [victim, sweeper] of [
    ['a-b.md', 'a.md'],
    ['x/plan.md', 'x.md']
  ] as const) {
    it(`${sweeper} runs from start to end while ${victim}'s agent runs on the same host: that agent runs once and completes`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'mdplan-sweep-'))
      const go = join(dir, 'go')
      const logs = {victim: join(dir, 'victim.log'), sweeper: join(dir, 'sweeper.log')}
      const repo = await tempRepo()
      await repo.commit('plans', {
        [victim]: shellPlan({A: {script: logged(logs.victim, `while [ ! -f '${go}' ]; do sleep 0.05; done\necho victim > victim.txt`)}}, {frontMatter: front()}),
        [sweeper]: shellPlan({A: {script: logged(logs.sweeper, 'echo sweeper > sweeper.txt')}}, {frontMatter: front()})
      })
      const running = startCli(['run', victim, '--max-attempts', '1'], {cwd: repo.root, env: gitEnv()})
      await waitFor(`${victim}'s agent to start`, () => existsSync(logs.victim))
      const folders = await jobFolders()
      expect(folders).toHaveLength(1)
      // The other plan's whole run: its sweep at the start and at the end, on the same host.
      const swept = await runCli(['run', sweeper, '--max-attempts', '1'], {cwd: repo.root, env: gitEnv()})
      expect(swept.exitCode, swept.all).toBe(0)
      expect(await jobFolders()).toEqual(folders)
      writeFileSync(go, '')
      const finished = await running
      expect(finished.exitCode, finished.all).toBe(0)
      for (const [plan, log] of [[victim, logs.victim], [sweeper, logs.sweeper]] as const) {
        const side = await readAgentLog(log)
        expect(side.starts, plan).toEqual(new Map([['A#1', 1]]))
        expect(side.unfinished, plan).toEqual([])
        expect((await readTable(join(repo.root, plan))).rows.A!.status, plan).toBe('completed')
      }
      expect(await repo.read('victim.txt')).toBe('victim\n')
      expect(await jobFolders()).toEqual([])
      await repo.cleanup()
    }, 90_000)
  }

  it('two repositories, each with its own plan.md, on one host: the second run, start to end, leaves the first one\'s running job alone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-sweep-'))
    const go = join(dir, 'go')
    const logs = {victim: join(dir, 'victim.log'), sweeper: join(dir, 'sweeper.log')}
    const victim = await tempRepo()
    const sweeper = await tempRepo()
    await victim.commit('plan', {'plan.md': shellPlan({A: {script: logged(logs.victim, `while [ ! -f '${go}' ]; do sleep 0.05; done\necho victim > victim.txt`)}}, {frontMatter: front()})})
    await sweeper.commit('plan', {'plan.md': shellPlan({A: {script: logged(logs.sweeper, 'echo sweeper > sweeper.txt')}}, {frontMatter: front()})})
    const running = startCli(['run', 'plan.md', '--max-attempts', '1'], {cwd: victim.root, env: gitEnv()})
    await waitFor("the first repository's agent to start", () => existsSync(logs.victim))
    const folders = await jobFolders()
    expect(folders).toHaveLength(1)
    const swept = await runCli(['run', 'plan.md', '--max-attempts', '1'], {cwd: sweeper.root, env: gitEnv()})
    expect(swept.exitCode, swept.all).toBe(0)
    expect(await jobFolders()).toEqual(folders)
    writeFileSync(go, '')
    const finished = await running
    expect(finished.exitCode, finished.all).toBe(0)
    for (const [repo, log] of [[victim, logs.victim], [sweeper, logs.sweeper]] as const) {
      const side = await readAgentLog(log)
      expect(side.starts).toEqual(new Map([['A#1', 1]]))
      expect((await readTable(join(repo.root, 'plan.md'))).rows.A!.status).toBe('completed')
    }
    expect(await victim.read('victim.txt')).toBe('victim\n')
    expect(await jobFolders()).toEqual([])
    await victim.cleanup()
    await sweeper.cleanup()
  }, 90_000)

  it('a row holding a key of the older form (`mdplan-p-A-a1-…`): the run submits under it, and after a SIGKILL the rerun re-attaches to that job; the agent runs once, its job is removed at the end', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-sweep-'))
    const go = join(dir, 'go')
    const log = join(dir, 'agents.log')
    const repo = await tempRepo()
    const key = 'mdplan-p-A-a1-abcdef'
    const text = shellPlan({A: {script: logged(log, `while [ ! -f '${go}' ]; do sleep 0.05; done\necho done > a.txt`)}}, {frontMatter: front()}).replace(
      '| A | pending | — | — | |',
      `| A | in_progress | — | — | job: ${sshd.hosts[0]!.alias} ${key} |`
    )
    await repo.commit('plan', {'p.md': text})
    const first = startCli(['run', 'p.md'], {cwd: repo.root, env: gitEnv()})
    await waitFor('the agent to start', () => existsSync(log))
    expect(await jobFolders()).toEqual([key])
    first.kill('SIGKILL')
    await first
    const second = startCli(['run', 'p.md'], {cwd: repo.root, env: gitEnv()})
    // The rerun's start sweep keeps the job its row names; the agent goes on.
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(await jobFolders()).toEqual([key])
    writeFileSync(go, '')
    const result = await second
    expect(result.exitCode, result.all).toBe(0)
    const side = await readAgentLog(log)
    expect(side.starts).toEqual(new Map([['A#1', 1]]))
    expect(side.unfinished).toEqual([])
    expect((await readTable(join(repo.root, 'p.md'))).rows.A!.status).toBe('completed')
    expect(await repo.git('log', '--format=%B')).toContain(`Mdplan-Key: ${key}`)
    expect(await jobFolders()).toEqual([])
    await repo.cleanup()
  }, 90_000)
})
