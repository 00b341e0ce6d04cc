import {existsSync} from 'node:fs'
import {mkdtemp, readdir, readFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'
import {duplicates, logged, randomDag, readAgentLog, readEvents} from '../../helpers/agent-log.js'
import {sshdMissing, startSshd, type SshdFixture} from '../../helpers/sshd.js'

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
    expect(launched.every((event) => /^mdplan13-plan-[0-9a-f]{8}-/.test(event.job ?? ''))).toBe(true)
    expect(events.peak).toBeLessThanOrEqual(6)
    const {rows} = await readTable(plan)
    for (const agent of dag) {
      expect(rows[agent.id]!.status).toBe('completed')
      expect(rows[agent.id]!.notes).toMatch(/host: h[12]/)
      expect(rows[agent.id]!.notes).toMatch(/commit: [0-9a-f]{12}/)
      expect(await repo.read(`out/${agent.id}.txt`)).toBe(`${agent.id}\n`)
    }
    const bodies = await repo.git('log', '--format=%B')
    for (const agent of dag) expect(bodies.match(new RegExp(`Mdplan-Key: mdplan13-plan-[0-9a-f]{8}-${agent.id}-a1-`, 'g'))).toHaveLength(1)
    expect(await repo.git('status', '--porcelain', '--', 'out')).toBe('')
    expect(await jobFolders()).toEqual([])
    await repo.cleanup()
  }, 120_000)

  /** A chain-and-fan DAG of slow agents, each recording its pid (to prove none is left running). */
  async function slowRepo(log: string, pids: string, seconds: number, front: string) {
    const ids = ['A', 'B', 'C', 'D', 'E', 'F']
    const deps: Record<string, string[]> = {A: [], B: [], C: ['A'], D: ['A'], E: ['C', 'B'], F: ['D']}
    const agents = Object.fromEntries(
      ids.map((id) => [id, {deps: deps[id], creates: [`out/${id}.txt`], script: logged(log, `echo $$ >> '${pids}'\nsleep ${seconds}\nmkdir -p out\necho ${id} > out/${id}.txt`)}])
    )
    const repo = await tempRepo()
    await repo.commit('plan', {'plan.md': shellPlan(agents, {frontMatter: front})})
    return {repo, ids, plan: join(repo.root, 'plan.md')}
  }

  async function alive(pids: string): Promise<number[]> {
    const text = existsSync(pids) ? await readFile(pids, 'utf8') : ''
    return text.split('\n').filter(Boolean).map(Number).filter((pid) => {
      try {
        process.kill(pid, 0)
        return true
      } catch {
        return false
      }
    })
  }

  it('SIGKILL of the coordinator mid-run, then a rerun: every agent ran exactly once, all work on main, nothing left on the hosts', async () => {
    const log = await logFile()
    const pids = join(dirname(log), 'pids')
    const {repo, ids, plan} = await slowRepo(log, pids, 1.5, ['concurrency: 4', 'commit: true', hostsFront(2)].join('\n'))
    const first = startCli(['run', plan, '--json'], {cwd: repo.root, env: gitEnv()})
    // Killed while jobs run on both hosts (their keys on disk), some done, some not yet submitted.
    await waitForTable(plan, (rows) => Object.values(rows).some((row) => row.status === 'completed') && Object.values(rows).some((row) => /job: h\d mdplan13-plan-[0-9a-f]{8}-/.test(row.notes)), 60_000)
    first.kill('SIGKILL')
    await first
    const killed = await readTable(plan)
    const inFlight = Object.entries(killed.rows).filter(([, row]) => row.status === 'in_progress')
    expect(inFlight.length).toBeGreaterThan(0)
    for (const [, row] of inFlight) expect(row.notes).toMatch(/job: h[12] mdplan13-plan-[0-9a-f]{8}-[A-F]-a1-[0-9a-f]{6}/)

    const second = await runCli(['run', plan, '--json'], {cwd: repo.root, env: gitEnv()})
    expect(second.exitCode, second.all).toBe(0)
    const side = await readAgentLog(log)
    const notes = JSON.stringify((await readTable(plan)).rows, null, 1)
    // Detached jobs outlived the coordinator: the rerun re-attached to them (or collected them), never started them again.
    expect(duplicates(side), side.lines.join('\n')).toEqual([])
    expect([...side.starts.keys()].sort(), `${notes}\n${second.all}`).toEqual(ids.map((id) => `${id}#1`))
    expect(side.unfinished).toEqual([])
    const {rows} = await readTable(plan)
    for (const id of ids) {
      expect(rows[id]!.status).toBe('completed')
      expect(await repo.read(`out/${id}.txt`)).toBe(`${id}\n`)
    }
    const bodies = await repo.git('log', '--format=%B')
    for (const id of ids) expect(bodies.match(new RegExp(`Mdplan-Key: mdplan13-plan-[0-9a-f]{8}-${id}-a1-`, 'g')), id).toHaveLength(1)
    expect(await jobFolders()).toEqual([])
    expect(await alive(pids)).toEqual([])
    await repo.cleanup()
  }, 180_000)

  it('Ctrl-C ends the remote process groups, keeps their folders for the rerun, and leaves the rows resumable', async () => {
    const log = await logFile()
    const pids = join(dirname(log), 'pids')
    const {repo, plan} = await slowRepo(log, pids, 30, ['concurrency: 4', hostsFront(2)].join('\n'))
    const run = startCli(['run', plan, '--json'], {cwd: repo.root, env: gitEnv()})
    // A and B start at once (no dependencies): interrupt once both run on their hosts.
    await waitForAgents(log, 2)
    run.kill('SIGINT')
    const result = await run
    expect(result.exitCode, result.all).toBe(130)
    expect(await alive(pids)).toEqual([])
    const {rows} = await readTable(plan)
    expect(rows.A!.status).toBe('in_progress')
    expect(rows.B!.status).toBe('in_progress')
    expect(rows.A!.notes).toMatch(/job: h[12] mdplan13-plan-[0-9a-f]{8}-A-a1-/)
    // Each stopped job's folder stays, as a local agent's files do: the row names its key, and the rerun goes on there.
    const named = ['A', 'B'].map((id) => /job: (h[12]) (mdplan[^\s;]+)/.exec(rows[id]!.notes)!).map((job) => `${job[1]}/${job[2]}`)
    expect((await jobFolders()).sort()).toEqual(named.sort())
    for (const folder of named) {
      const [alias, key] = folder.split('/')
      expect(existsSync(join(sshd.hosts.find((host) => host.alias === alias)!.dir, 'jobs', key!, 'stopped')), folder).toBe(true)
    }
    await repo.cleanup()
  }, 120_000)

  it('a host that dies mid-run fails its attempts as `host lost` and they complete on the other host', async () => {
    const log = await logFile()
    const pids = join(dirname(log), 'pids')
    const {repo, ids, plan} = await slowRepo(log, pids, 2, ['concurrency: 4', hostsFront(2, ['lease: 3s'])].join('\n'))
    const run = startCli(['run', plan, '--json', '--max-attempts', '2'], {cwd: repo.root, env: gitEnv()})
    await waitForAgents(log, 2)
    const dead = sshd.hosts[0]!
    const onDead = (await readTable(plan)).rows
    const victims = Object.entries(onDead).filter(([, row]) => row.notes.includes(`job: ${dead.alias} `)).map(([id]) => id)
    expect(victims.length).toBeGreaterThan(0)
    await dead.stop()
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    const {rows} = await readTable(plan)
    for (const id of ids) expect(rows[id]!.status).toBe('completed')
    for (const id of victims) {
      expect(rows[id]!.notes).toContain(`attempt 1: host lost: ${dead.alias}`)
      expect(rows[id]!.notes).toContain('host: h2')
    }
    // A late result of the lost key (its job ran on) is never merged: one result per agent on main.
    const bodies = await repo.git('log', '--format=%B')
    for (const id of ids) expect(bodies.match(new RegExp(`Mdplan-Key: mdplan13-plan-[0-9a-f]{8}-${id}-a\\d-`, 'g')), id).toHaveLength(1)
    await dead.start()
    await repo.cleanup()
  }, 180_000)
})

/** Resolve once `count` agents have written their start line (they run: their jobs were submitted). */
async function waitForAgents(log: string, count: number): Promise<void> {
  const deadline = Date.now() + 60_000
  while ((await readAgentLog(log)).starts.size < count) {
    if (Date.now() > deadline) throw new Error(`fewer than ${count} agents started`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
