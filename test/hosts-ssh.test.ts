import {existsSync} from 'node:fs'
import {mkdtemp, readdir} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from './helpers/git-repo.js'
import {readTable, runCli, shellPlan} from './helpers/run-cli.js'
import {duplicates, logged, randomDag, readAgentLog, readEvents} from './helpers/agent-log.js'
import {sshdMissing, startSshd, type SshdFixture} from './helpers/sshd.js'

const missing = sshdMissing()
if (missing) console.log(`hosts-ssh: skipped: ${missing}`)

const gitEnv = () => ({GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'})

let sshd: SshdFixture
beforeAll(async () => {
  await isolateGitConfig()
  if (!missing) sshd = await startSshd(2)
}, 30_000)
afterAll(() => sshd?.close())

async function logFile(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), 'mdplan-hosts-log-')), 'agents.log')
}

/** Front matter for a pool of the fixture's two hosts. */
function hostsFront(slots: number, extra: string[] = []): string {
  const host = (index: number) => {
    const h = sshd.hosts[index]!
    return `  ${h.alias}: {type: ssh, address: ${h.alias}, config: '${sshd.config}', dir: '${h.dir}', slots: ${slots}${extra.length ? `, ${extra.join(', ')}` : ''}}`
  }
  return ['hosts:', host(0), host(1), `host: [${sshd.hosts.map((h) => h.alias).join(', ')}]`].join('\n')
}

async function jobFolders(): Promise<string[]> {
  const all: string[] = []
  for (const host of sshd.hosts) {
    const jobs = join(host.dir, 'jobs')
    if (existsSync(jobs)) all.push(...(await readdir(jobs)).map((key) => `${host.alias}/${key}`))
  }
  return all
}

describe.skipIf(missing !== undefined)('agents on ssh hosts (a real sshd on 127.0.0.1)', () => {
  it('runs a 20-agent DAG on a pool of two hosts with commit: true: once each, all work merged on main', async () => {
    const log = await logFile()
    const dag = randomDag(20, 7, 20, 80)
    const agents = Object.fromEntries(
      dag.map((agent) => [
        agent.id,
        {deps: agent.deps, creates: [`out/${agent.id}.txt`], script: logged(log, `sleep ${(agent.ms / 1000).toFixed(3)}\nmkdir -p out\necho ${agent.id} > out/${agent.id}.txt`)}
      ])
    )
    const repo = await tempRepo()
    await repo.commit('plan', {'plan.md': shellPlan(agents, {frontMatter: ['concurrency: 6', 'commit: true', hostsFront(3)].join('\n')})})
    const plan = join(repo.root, 'plan.md')
    const result = await runCli(['run', plan, '--json', '--max-attempts', '1'], {cwd: repo.root, env: gitEnv()})
    expect(result.exitCode, result.all).toBe(0)
    const side = await readAgentLog(log)
    expect(duplicates(side)).toEqual([])
    expect([...side.starts.keys()].sort()).toEqual(dag.map((agent) => `${agent.id}#1`).sort())
    expect(side.unfinished).toEqual([])
    expect(side.peak).toBeLessThanOrEqual(6)
    const events = readEvents(result.stdout)
    const launched = result.stdout.split('\n').filter((line) => line.includes('"type":"launched"')).map((line) => JSON.parse(line) as {host?: string; job?: string})
    expect(new Set(launched.map((event) => event.host))).toEqual(new Set(['h1', 'h2']))
    expect(launched.every((event) => event.job?.startsWith('mdplan-plan-'))).toBe(true)
    expect(events.peak).toBeLessThanOrEqual(6)
    const {rows} = await readTable(plan)
    for (const agent of dag) {
      expect(rows[agent.id]!.status).toBe('completed')
      expect(rows[agent.id]!.notes).toMatch(/host: h[12]/)
      expect(rows[agent.id]!.notes).toMatch(/commit: [0-9a-f]{12}/)
      expect(await repo.read(`out/${agent.id}.txt`)).toBe(`${agent.id}\n`)
    }
    const bodies = await repo.git('log', '--format=%B')
    for (const agent of dag) expect(bodies.match(new RegExp(`Mdplan-Key: mdplan-plan-${agent.id}-a1-`, 'g'))).toHaveLength(1)
    expect(await repo.git('status', '--porcelain', '--', 'out')).toBe('')
    expect(await jobFolders()).toEqual([])
    await repo.cleanup()
  }, 120_000)
})
