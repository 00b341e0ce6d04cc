import {existsSync} from 'node:fs'
import {mkdtemp, readdir} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'
import {duplicates, logged, readAgentLog} from '../../helpers/agent-log.js'
import {fakeEngine} from '../../helpers/fake-engine.js'

// Container hosts against a fake engine CLI (test/helpers/fake-engine.mjs): the exactly-once cases in every `npm test`.
beforeAll(isolateGitConfig)


async function planRepo(seconds: number) {
  const log = join(await mkdtemp(join(tmpdir(), 'mdplan-container-log-')), 'agents.log')
  const deps: Record<string, string[]> = {A: [], B: [], C: ['A'], D: ['A', 'B'], E: ['C']}
  const agents = Object.fromEntries(
    Object.entries(deps).map(([id, on]) => [id, {deps: on, creates: [`out/${id}.txt`], script: logged(log, `sleep ${seconds}\nmkdir -p out\necho ${id} > out/${id}.txt`)}])
  )
  const front = ['concurrency: 3', 'commit: true', 'hosts:', '  sandbox: {type: container, image: localhost/agent:1, engine: podman, slots: 2}', 'host: sandbox'].join('\n')
  const repo = await tempRepo()
  await repo.commit('plan', {'plan.md': shellPlan(agents, {frontMatter: front})})
  return {repo, log, ids: Object.keys(deps), plan: join(repo.root, 'plan.md')}
}

async function expectAllDone(repo: Awaited<ReturnType<typeof tempRepo>>, plan: string, log: string, ids: string[]) {
  const side = await readAgentLog(log)
  expect(duplicates(side), side.lines.join('\n')).toEqual([])
  expect([...side.starts.keys()].sort()).toEqual(ids.map((id) => `${id}#1`))
  const {rows} = await readTable(plan)
  for (const id of ids) {
    expect(rows[id]!.status).toBe('completed')
    expect(rows[id]!.notes).toContain('host: sandbox')
    expect(await repo.read(`out/${id}.txt`)).toBe(`${id}\n`)
  }
  const bodies = await repo.git('log', '--format=%B')
  for (const id of ids) expect(bodies.match(new RegExp(`Mdplan-Key: mdplan13-plan-[0-9a-f]{8}-${id}-a1-`, 'g')), id).toHaveLength(1)
}

describe('agents in containers (fake engine CLI)', () => {
  it('runs each agent once in a container named by its key, merges its work, and removes the containers', async () => {
    const engine = await fakeEngine()
    const {repo, log, ids, plan} = await planRepo(0.05)
    const result = await runCli(['run', plan, '--json'], {cwd: repo.root, env: engine.env})
    expect(result.exitCode, result.all).toBe(0)
    await expectAllDone(repo, plan, log, ids)
    const runs = (await engine.calls()).filter((call) => call.startsWith('run -d'))
    expect(runs).toHaveLength(ids.length)
    expect(runs.every((call) => /--name mdplan13-plan-[0-9a-f]{8}-[A-E]-a1-[0-9a-f]{6} /.test(call))).toBe(true)
    expect((await readdir(engine.state)).filter((name) => name.endsWith('.json'))).toEqual([])
    await repo.cleanup()
  }, 60_000)

  it('a submit whose answer is lost is not submitted twice: the name finds the container that started', async () => {
    const engine = await fakeEngine({FAKE_ENGINE_LOSE_ANSWER: '1'})
    const {repo, log, ids, plan} = await planRepo(0.05)
    const result = await runCli(['run', plan, '--json'], {cwd: repo.root, env: engine.env})
    expect(result.exitCode, result.all).toBe(0)
    await expectAllDone(repo, plan, log, ids)
    expect((await engine.calls()).filter((call) => call.startsWith('run -d'))).toHaveLength(ids.length)
    await repo.cleanup()
  }, 60_000)

  it('a rerun after SIGKILL re-attaches to running containers by name (a duplicate name is never a second container)', async () => {
    const engine = await fakeEngine()
    const {repo, log, ids, plan} = await planRepo(1.5)
    const first = startCli(['run', plan, '--json'], {cwd: repo.root, env: engine.env})
    await waitForTable(plan, (rows) => Object.values(rows).filter((row) => /job: sandbox mdplan13-plan-[0-9a-f]{8}-/.test(row.notes)).length >= 2, 30_000)
    // Both first containers started (their agents wrote their start lines) before the coordinator dies.
    for (let side = await readAgentLog(log); side.starts.size < 2; side = await readAgentLog(log)) await new Promise((resolve) => setTimeout(resolve, 50))
    first.kill('SIGKILL')
    await first
    const second = await runCli(['run', plan, '--json'], {cwd: repo.root, env: engine.env})
    expect(second.exitCode, second.all).toBe(0)
    await expectAllDone(repo, plan, log, ids)
    const names = (await engine.calls()).filter((call) => call.startsWith('run -d')).map((call) => /--name (\S+)/.exec(call)![1])
    expect(new Set(names).size).toBe(names.length)
    expect((await readdir(engine.state)).filter((name) => name.endsWith('.json'))).toEqual([])
    expect(existsSync(join(dirname(plan), '.mdplan', 'jobs')) ? await readdir(join(dirname(plan), '.mdplan', 'jobs')) : []).toEqual([])
    await repo.cleanup()
  }, 90_000)

  it('an answered agent goes on in the clone of the container that asked, with the work it did before asking', async () => {
    const engine = await fakeEngine()
    const log = join(await mkdtemp(join(tmpdir(), 'mdplan-container-log-')), 'agents.log')
    const script = logged(log, [
      'if [ -z "${MDPLAN_ANSWER:-}" ]; then',
      "  echo 'step 1 of 2' > partial.txt; printf 'RESULT: QUESTION\\nQuestion: go on?\\n'",
      'else echo "partial: $(cat partial.txt 2>&1)" > seen.txt; fi'
    ].join('\n'))
    const front = ['hosts:', '  sandbox: {type: container, image: localhost/agent:1, engine: podman, slots: 2}', 'host: sandbox'].join('\n')
    const repo = await tempRepo()
    await repo.commit('plan', {'plan.md': shellPlan({A: {script, creates: ['partial.txt', 'seen.txt']}}, {frontMatter: front})})
    const plan = join(repo.root, 'plan.md')
    expect((await runCli(['run', plan], {cwd: repo.root, env: engine.env})).exitCode).toBe(1)
    const asked = /work: sandbox (mdplan\S+)/.exec((await readTable(plan)).rows.A!.notes)![1]!.replace(/;$/, '')
    expect((await runCli(['answer', plan, 'A', 'yes'], {cwd: repo.root, env: engine.env})).exitCode).toBe(0)
    const second = await runCli(['run', plan], {cwd: repo.root, env: engine.env})
    expect(second.exitCode, second.all).toBe(0)
    expect((await readAgentLog(log)).lines.filter((line) => line.startsWith('start '))).toHaveLength(2)
    expect(await repo.read('seen.txt')).toBe('partial: step 1 of 2\n')
    // The resumed container gets the first one's clone where every job's clone is.
    const resumed = (await engine.calls()).filter((call) => call.startsWith('run -d')).at(-1)!
    expect(resumed).toContain(`${join(repo.root, '.mdplan', 'jobs', asked, 'work')}:/mdplan/job/work`)
    expect((await readdir(engine.state)).filter((name) => name.endsWith('.json'))).toEqual([])
    expect(existsSync(join(repo.root, '.mdplan', 'jobs')) ? await readdir(join(repo.root, '.mdplan', 'jobs')) : []).toEqual([])
    await repo.cleanup()
  }, 60_000)
})
