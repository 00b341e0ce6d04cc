import {existsSync, readFileSync} from 'node:fs'
import {mkdtemp} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {execa} from 'execa'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {bin, readTable, runCli, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'

beforeAll(isolateGitConfig)

const gitEnv = () => ({GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'})
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * A repository whose plan has `ids` as independent shell agents of `seconds` each. Every agent holds a
 * lock on its own file while it runs (`flock`, freed only when the process ends): a second copy of it
 * running beside the first writes `overlap ID` to the log.
 */
async function raceRepo(ids: string[], seconds: number) {
  const log = join(await mkdtemp(join(tmpdir(), 'mdplan-race-log-')), 'agents.log')
  const agents = Object.fromEntries(
    ids.map((id) => [id, {script: `exec 9>>'${log}.${id}.flock'\nflock -n 9 || echo "overlap ${id}" >> '${log}'\n${logged(log, `sleep ${seconds}`)}`}])
  )
  const repo = await tempRepo()
  await repo.commit('plan', {'plan.md': shellPlan(agents, {frontMatter: `concurrency: ${ids.length}`})})
  return {repo, log, plan: join(repo.root, 'plan.md')}
}

const overlaps = (log: string): string[] => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter((line) => line.startsWith('overlap')) : [])

async function waitFor(predicate: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await sleep(20)
  }
}

/** The rerun finishes the plan, and no agent ever ran beside a copy of itself. */
async function expectRerunAlone(repo: Awaited<ReturnType<typeof raceRepo>>['repo'], plan: string, log: string): Promise<void> {
  const second = await runCli(['run', 'plan.md'], {cwd: repo.root, env: gitEnv()})
  expect(second.exitCode, second.all).toBe(0)
  const {rows} = await readTable(plan)
  expect(Object.entries(rows).filter(([, row]) => row.status !== 'completed')).toEqual([])
  // An orphan the rerun did not end would still hold its lock after the rerun's copy began; give a late one time to say so.
  await sleep(300)
  const side = await readAgentLog(log)
  expect(overlaps(log), side.lines.join('\n')).toEqual([])
}

describe('a SIGKILL at the moment an agent is launched (git repository)', () => {
  for (const helper of ['1', '0']) {
    it(`mdplan killed after the agent started and before it heard so${helper === '1' ? ' from the spawn helper' : ' (MDPLAN_SPAWN_HELPER=0: forked by mdplan)'}: the rerun never runs a second copy beside it`, async () => {
      const {repo, log, plan} = await raceRepo(['A'], 4)
      // mdplan holds still between the agent's start and all it does next; the agent's first line says it runs.
      const first = startCli(['run', 'plan.md'], {cwd: repo.root, env: {...gitEnv(), MDPLAN_SPAWN_HELPER: helper, MDPLAN_TEST_SPAWN_PAUSE_MS: '8000'}})
      await waitFor(() => (existsSync(log) ? readFileSync(log, 'utf8').includes('start A') : false))
      first.kill('SIGKILL')
      await first
      await expectRerunAlone(repo, plan, log)
      await repo.cleanup()
    }, 60_000)
  }

  it('mdplan killed while the spawn helper was about to fork the agent: the helper never forks it, and the rerun runs it once', async () => {
    const {repo, log, plan} = await raceRepo(['A'], 3)
    // The helper takes 2 s from A's launch message to its fork; mdplan dies in between.
    const first = startCli(['run', 'plan.md'], {cwd: repo.root, env: {...gitEnv(), MDPLAN_TEST_HELPER_DELAY_MS: '2000'}})
    await waitForTable(plan, (rows) => rows.A?.status === 'in_progress')
    // The message goes out right after the row is written; this leaves it ample time to be in the helper's hands.
    await sleep(500)
    first.kill('SIGKILL')
    await first
    // Until the helper would have forked, and past it.
    await sleep(2500)
    await expectRerunAlone(repo, plan, log)
    const side = await readAgentLog(log)
    expect(side.starts.get('A#1'), side.lines.join('\n')).toBe(1)
    await repo.cleanup()
  }, 60_000)

  it('mdplan killed after the spawn helper saw it alive and before its fork: the rerun re-attaches to the job the helper forked', async () => {
    const {repo, log, plan} = await raceRepo(['A'], 4)
    // The helper has checked that mdplan lives, then takes 4 s to fork; mdplan dies and the rerun starts in between.
    const first = startCli(['run', 'plan.md'], {cwd: repo.root, env: {...gitEnv(), MDPLAN_TEST_HELPER_FORK_DELAY_MS: '4000'}})
    await waitForTable(plan, (rows) => rows.A?.status === 'in_progress')
    await sleep(500)
    // Gone, and the rerun starts at once: not after \`await first\`, which also waits for the helper (it holds
    // mdplan's stderr) to close it.
    const exited = new Promise((resolve) => first.once('exit', resolve))
    first.kill('SIGKILL')
    await exited
    const second = await runCli(['run', 'plan.md'], {cwd: repo.root, env: gitEnv()})
    await first
    expect(second.exitCode, second.all).toBe(0)
    expect((await readTable(plan)).rows.A!.status).toBe('completed')
    await sleep(300)
    const side = await readAgentLog(log)
    expect(overlaps(log), side.lines.join('\n')).toEqual([])
    // A local agent is a job: the rerun finds the one the helper forked and waits for its end, so A runs once.
    expect(second.all).toContain('launched A (attempt 1, resumed)')
    expect(side.starts.get('A#1'), side.lines.join('\n')).toBe(1)
    expect(side.lines.filter((line) => line.startsWith('end A')), side.lines.join('\n')).toHaveLength(1)
    await repo.cleanup()
  }, 60_000)

  it('SIGKILLs of the whole process group 0-40 ms after the first launch is on disk, then a rerun: never two copies of an agent', async () => {
    for (let loop = 0; loop < 4; loop++) {
      const {repo, log, plan} = await raceRepo(['A', 'B', 'C'], 2)
      // Its own process group, as a shell job is: `kill -9 -PGID` ends mdplan and whatever shares its group.
      const first = execa(process.execPath, [bin, 'run', 'plan.md'], {cwd: repo.root, env: {...gitEnv(), NO_COLOR: '1'}, detached: true, reject: false})
      await waitForTable(plan, (rows) => Object.values(rows).some((row) => row.status === 'in_progress'), 20_000)
      await sleep(Math.floor(Math.random() * 40))
      process.kill(-first.pid!, 'SIGKILL')
      await first
      await expectRerunAlone(repo, plan, log)
      await repo.cleanup()
    }
  }, 120_000)
})
