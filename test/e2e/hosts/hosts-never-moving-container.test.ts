import {existsSync} from 'node:fs'
import {mkdtemp, readdir, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {execa} from 'execa'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan, startCli} from '../../helpers/run-cli.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {fakeEngine} from '../../helpers/fake-engine.js'

// Container jobs that never move (container-run.ts): one left `created` ends its attempt after MDPLAN_STUCK_MS
// and the agent goes again under a new key with no attempt spent (settle-attempt.ts, goAgain); a job folder a
// submit killed mid-way left without its started mark (`pid`, which run.sh writes first) is ended or started by
// the rerun, the agent once. Against the fake engine (test/helpers/fake-engine.mjs): a real podman cannot be made
// to leave a container `created` reliably (its `run -d` would have to die between create and start), so these
// run in every `npm test` with the fake only. Counted from the agent's side: one start line per start.
beforeAll(isolateGitConfig)

/** How long a container may stay `created` here (the default is a minute). */
const stuckMs = 2_000

/** The fake engine, with the stuck bound short, and what these tests ask of its calls. */
async function stuckEngine(extra: Record<string, string> = {}) {
  const {env, state, log, calls} = await fakeEngine({MDPLAN_STUCK_MS: String(stuckMs), ...extra})
  return {
    env,
    state,
    /** The names of the containers `run -d` was asked for, in order. */
    runs: async () => (await calls()).filter((call) => call.startsWith('run -d')).map((call) => /--name (\S+)/.exec(call)![1]!),
    /** Ms from the first call `from` matches to the first after it `to` matches (the engine's own clock). */
    async between(from: (call: string) => boolean, to: (call: string) => boolean): Promise<number> {
      const timed = existsSync(`${log}.times`) ? (await readFile(`${log}.times`, 'utf8')).split('\n').filter(Boolean) : []
      const calls = timed.map((line) => ({at: Number(line.slice(0, line.indexOf(' '))), call: line.slice(line.indexOf(' ') + 1)}))
      const start = calls.findIndex((entry) => from(entry.call))
      const end = calls.findIndex((entry, index) => index > start && to(entry.call))
      if (start === -1 || end === -1) throw new Error('no such calls')
      return calls[end]!.at - calls[start]!.at
    },
    /** Containers the engine still has. */
    containers: async () => (await readdir(state)).filter((name) => name.endsWith('.json')).map((name) => name.slice(0, -5))
  }
}

/** One agent A, `max_attempts: 1` (a spent attempt fails the run), in a real repository, on a container host. */
async function oneAgent() {
  const log = join(await mkdtemp(join(tmpdir(), 'mdplan-never-log-')), 'agents.log')
  const front = ['max_attempts: 1', 'commit: true', 'hosts:', '  sandbox: {type: container, image: localhost/agent:1, engine: podman, slots: 1}', 'host: sandbox'].join('\n')
  const repo = await tempRepo()
  await repo.commit('plan', {'plan.md': shellPlan({A: {creates: ['out/A.txt'], script: logged(log, 'mkdir -p out\necho A > out/A.txt')}}, {frontMatter: front})})
  return {repo, log, plan: join(repo.root, 'plan.md'), jobs: join(repo.root, '.mdplan', 'jobs')}
}

/** A completed once (one start line, attempt 1), no failed attempt in its Notes, its work committed under `key`. */
async function expectOnce(setup: Awaited<ReturnType<typeof oneAgent>>, key: string) {
  const {repo, log, plan, jobs} = setup
  const side = await readAgentLog(log)
  expect(side.lines.filter((line) => line.startsWith('start ')), side.lines.join('\n')).toHaveLength(1)
  expect(Object.fromEntries(side.starts)).toEqual({'A#1': 1})
  expect(side.unfinished).toEqual([])
  const {rows} = await readTable(plan)
  expect(rows.A!.status).toBe('completed')
  expect(rows.A!.notes).not.toMatch(/attempt \d+:/)
  expect(await repo.read('out/A.txt')).toBe('A\n')
  const keys = (await repo.git('log', '--format=%B')).match(/^Mdplan-Key: .*$/gm)
  expect(keys).toEqual([`Mdplan-Key: ${key}`])
  expect(existsSync(jobs) ? await readdir(jobs) : []).toEqual([])
}

/** The job key the row names (`job: sandbox KEY`). */
async function rowKey(plan: string): Promise<string> {
  return /job: sandbox (mdplan[^\s;]+)/.exec((await readTable(plan)).rows.A!.notes)![1]!
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  for (const deadline = Date.now() + ms; !(await check()); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe('container jobs that never move (fake engine CLI)', () => {
  it('a container left `created` ends its attempt after the bound; the agent completes under a new key, once, no attempt spent', async () => {
    const engine = await stuckEngine({FAKE_ENGINE_CREATE_ONLY: '1'})
    const setup = await oneAgent()
    const began = Date.now()
    const result = await runCli(['run', setup.plan], {cwd: setup.repo.root, env: engine.env})
    const took = Date.now() - began
    expect(result.exitCode, result.all).toBe(0)
    expect(result.all).toMatch(/A: the container mdplan\S+ stayed created and never started its job; launched again under a new key \(no attempt used\)/)
    const runs = await engine.runs()
    // The first key's container was made, never started, and removed; the second key's ran the agent.
    expect(runs).toHaveLength(2)
    expect(runs.every((name) => /^mdplan13-plan-[0-9a-f]{8}-A-a1-[0-9a-f]{6}$/.test(name))).toBe(true)
    expect(runs[0]).not.toBe(runs[1])
    await expectOnce(setup, runs[1]!)
    expect(await engine.containers()).toEqual([])
    // The container made and never started was removed once it had stayed `created` for the bound (not less, not much more).
    const held = await engine.between((call) => call.startsWith(`run -d --name ${runs[0]} `), (call) => call.startsWith('rm ') && call.endsWith(` ${runs[0]}`))
    console.log(`never-moving container created: removed ${held} ms after its run -d (bound ${stuckMs} ms); the run took ${took} ms`)
    expect(held).toBeGreaterThanOrEqual(stuckMs)
    expect(held).toBeLessThan(stuckMs + 15_000)
    await setup.repo.cleanup()
  }, 90_000)

  it('a container that ended before its job began: the attempt ends, the agent completes under a new key, once, no attempt spent', async () => {
    const engine = await stuckEngine({FAKE_ENGINE_NO_JOB: '1'})
    const setup = await oneAgent()
    const result = await runCli(['run', setup.plan], {cwd: setup.repo.root, env: engine.env})
    expect(result.exitCode, result.all).toBe(0)
    expect(result.all).toMatch(/A: the container mdplan\S+ ended before its job began; launched again under a new key \(no attempt used\)/)
    const runs = await engine.runs()
    expect(runs).toHaveLength(2)
    expect(runs[0]).not.toBe(runs[1])
    await expectOnce(setup, runs[1]!)
    expect(await engine.containers()).toEqual([])
    await setup.repo.cleanup()
  }, 90_000)

  it('coordinator SIGKILL while its `run -d` had made the container and not started it: the rerun ends it after the bound, the agent completes once', async () => {
    const engine = await stuckEngine({FAKE_ENGINE_HANG: 'created'})
    const setup = await oneAgent()
    const first = startCli(['run', setup.plan], {cwd: setup.repo.root, env: engine.env})
    const hang = join(engine.state, 'hang.pid')
    await waitFor('the first `run -d`', () => existsSync(hang))
    const key = await rowKey(setup.plan)
    // The coordinator and its `run -d` die together, as a killed process group does.
    first.kill('SIGKILL')
    process.kill(Number(await readFile(hang, 'utf8')), 'SIGKILL')
    await first
    // What it left: the job folder whole (renamed into place), never started (no `pid`), and a container `created`.
    expect(existsSync(join(setup.jobs, key, 'run.sh'))).toBe(true)
    expect(existsSync(join(setup.jobs, key, 'pid'))).toBe(false)
    expect(await engine.containers()).toEqual([key])
    expect((await readTable(setup.plan)).rows.A!.status).toBe('in_progress')
    const began = Date.now()
    const second = await runCli(['run', setup.plan], {cwd: setup.repo.root, env: engine.env})
    const took = Date.now() - began
    expect(second.exitCode, second.all).toBe(0)
    expect(second.all).toMatch(/stayed created and never started its job; launched again under a new key \(no attempt used\)/)
    const runs = await engine.runs()
    expect(runs).toHaveLength(2)
    expect(runs[0]).toBe(key)
    expect(runs[1]).not.toBe(key)
    await expectOnce(setup, runs[1]!)
    expect(await engine.containers()).toEqual([])
    // From the rerun's first look at the `created` container to its removal: the bound.
    const held = await engine.between((call) => call.startsWith('container inspect') && call.endsWith(` ${key}`), (call) => call.startsWith('rm ') && call.endsWith(` ${key}`))
    console.log(`never-moving container SIGKILL (created): removed ${held} ms after the rerun first saw it (bound ${stuckMs} ms); the rerun took ${took} ms`)
    expect(held).toBeGreaterThanOrEqual(stuckMs)
    expect(held).toBeLessThan(stuckMs + 15_000)
    await setup.repo.cleanup()
  }, 120_000)

  it('coordinator SIGKILL after the folder was placed, before `run -d` made anything: the rerun starts the key in that folder, the agent completes once', async () => {
    const engine = await stuckEngine({FAKE_ENGINE_HANG: 'before'})
    const setup = await oneAgent()
    const first = startCli(['run', setup.plan], {cwd: setup.repo.root, env: engine.env})
    const hang = join(engine.state, 'hang.pid')
    await waitFor('the first `run -d`', () => existsSync(hang))
    const key = await rowKey(setup.plan)
    first.kill('SIGKILL')
    process.kill(Number(await readFile(hang, 'utf8')), 'SIGKILL')
    await first
    expect(existsSync(join(setup.jobs, key, 'run.sh'))).toBe(true)
    expect(existsSync(join(setup.jobs, key, 'pid'))).toBe(false)
    expect(await engine.containers()).toEqual([])
    const second = await runCli(['run', setup.plan], {cwd: setup.repo.root, env: engine.env})
    expect(second.exitCode, second.all).toBe(0)
    // Nothing of the key ever ran: the rerun submits it (the same key; the row named it before the submit).
    expect(await engine.runs()).toEqual([key, key])
    await expectOnce(setup, key)
    expect(await engine.containers()).toEqual([])
    await setup.repo.cleanup()
  }, 120_000)

  it('a half-made folder under the key the row names (no job script, no started mark, no container): the rerun makes it anew, the agent completes once', async () => {
    const engine = await stuckEngine({FAKE_ENGINE_HANG: 'before'})
    const setup = await oneAgent()
    const first = startCli(['run', setup.plan], {cwd: setup.repo.root, env: engine.env})
    const hang = join(engine.state, 'hang.pid')
    await waitFor('the first `run -d`', () => existsSync(hang))
    const key = await rowKey(setup.plan)
    first.kill('SIGKILL')
    process.kill(Number(await readFile(hang, 'utf8')), 'SIGKILL')
    await first
    // Made by hand: only part of what an unpack writes, as a submit cut short in place (an older mdplan) left it.
    const folder = join(setup.jobs, key)
    for (const name of await readdir(folder)) if (name !== 'job') await rm(join(folder, name), {recursive: true, force: true})
    expect(await readdir(folder)).toEqual(['job'])
    const second = await runCli(['run', setup.plan], {cwd: setup.repo.root, env: engine.env})
    expect(second.exitCode, second.all).toBe(0)
    expect(await engine.runs()).toEqual([key, key])
    await expectOnce(setup, key)
    await setup.repo.cleanup()
  }, 120_000)
})

describe('a container job that began and whose container is gone (fake engine CLI)', () => {
  it('coordinator SIGKILL, then the container removed by hand: the rerun does not start its agent again; the attempt fails, and the next one completes', async () => {
    const engine = await stuckEngine()
    const log = join(await mkdtemp(join(tmpdir(), 'mdplan-never-log-')), 'agents.log')
    const flag = `${log}.go`
    const front = ['max_attempts: 2', 'commit: true', 'hosts:', '  sandbox: {type: container, image: localhost/agent:1, engine: podman, slots: 1}', 'host: sandbox'].join('\n')
    const repo = await tempRepo()
    await repo.commit('plan', {'plan.md': shellPlan({A: {creates: ['out/A.txt'], script: logged(log, `[ -f '${flag}' ] || sleep 60\nmkdir -p out\necho "A $MDPLAN_ATTEMPT" > out/A.txt`)}}, {frontMatter: front})})
    const plan = join(repo.root, 'plan.md')
    const jobs = join(repo.root, '.mdplan', 'jobs')
    const first = startCli(['run', plan], {cwd: repo.root, env: engine.env})
    await waitFor('the agent to start', async () => (await readAgentLog(log)).starts.size === 1)
    const key = await rowKey(plan)
    first.kill('SIGKILL')
    await first
    // Removed while no coordinator follows it (`podman rm -f`, a prune): its agent began (`pid`) and has no result.
    await execa('podman', ['rm', '-f', key], {env: engine.env})
    expect(existsSync(join(jobs, key, 'pid'))).toBe(true)
    expect(existsSync(join(jobs, key, 'rc'))).toBe(false)
    await writeFile(flag, '')
    const second = await runCli(['run', plan], {cwd: repo.root, env: engine.env})
    expect(second.exitCode, second.all).toBe(0)
    const side = await readAgentLog(log)
    // Attempt 1's agent started once (never again under its key); attempt 2 did the work.
    expect(Object.fromEntries(side.starts), side.lines.join('\n')).toEqual({'A#1': 1, 'A#2': 1})
    const {rows} = await readTable(plan)
    expect(rows.A!.status).toBe('completed')
    expect(rows.A!.notes).toMatch(/attempt 1: /)
    expect(await repo.read('out/A.txt')).toBe('A 2\n')
    expect((await repo.git('log', '--format=%B')).match(/^Mdplan-Key: .*$/gm)).toEqual([expect.stringMatching(/-A-a2-/)])
    // (The rerun does `run -d` the key again in its folder; its job script stops before the agent, its env file
    // being gone with the first start: attempt 1 ends without a result.)
    expect((await engine.runs()).filter((name) => name === key).length).toBeGreaterThanOrEqual(1)
    expect(existsSync(jobs) ? await readdir(jobs) : []).toEqual([])
    await repo.cleanup()
  }, 120_000)
})
