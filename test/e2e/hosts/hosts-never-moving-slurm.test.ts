import {mkdtemp} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {execa} from 'execa'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {fakeSlurm} from '../../helpers/fake-slurm.js'

// A queued Slurm job cancelled by hand (`scancel` while it waits) left the queue without starting its agent
// (slurm-follow.ts): its attempt ends once Slurm's answer has settled (5 s), and the agent goes again under a new
// key with no attempt spent (settle-attempt.ts, goAgain). With `max_attempts: 1`, a spent attempt would fail the
// run. Counted from the agent's side: one start line per start. The fake Slurm runs in every `npm test`; the real
// single-node cluster of `npm run test:slurm` (MDPLAN_REAL_SLURM, its shared folder) when it is up.
beforeAll(isolateGitConfig)

const gitEnv = () => ({GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'})

/** One agent A on a slurm host with `dir` shared, `max_attempts: 1`, in a real repository. */
async function oneAgent(shared: string, extra = '') {
  const log = join(await mkdtemp(join(tmpdir(), 'mdplan-never-slurm-')), 'agents.log')
  const repo = await tempRepo()
  const front = ['max_attempts: 1', 'commit: true', 'hosts:', `  hpc: {type: slurm, dir: '${shared}', partition: debug, slots: 1${extra}}`, 'host: hpc'].join('\n')
  await repo.commit('plan', {'plan.md': shellPlan({A: {creates: ['out/A.txt'], script: logged(log, 'mkdir -p out\necho "A $MDPLAN_ATTEMPT" > out/A.txt')}}, {frontMatter: front})})
  return {repo, log, plan: join(repo.root, 'plan.md')}
}

/** A completed once (one start line, attempt 1), no failed attempt in its Notes, its work committed once, under another key than `cancelled`. */
async function expectOnce(setup: Awaited<ReturnType<typeof oneAgent>>, cancelled: string) {
  const {repo, log, plan} = setup
  const side = await readAgentLog(log)
  expect(side.lines.filter((line) => line.startsWith('start ')), side.lines.join('\n')).toHaveLength(1)
  expect(Object.fromEntries(side.starts)).toEqual({'A#1': 1})
  expect(side.unfinished).toEqual([])
  const {rows} = await readTable(plan)
  expect(rows.A!.status).toBe('completed')
  expect(rows.A!.notes).not.toMatch(/attempt \d+:/)
  expect(await repo.read('out/A.txt')).toBe('A 1\n')
  const keys = (await repo.git('log', '--format=%B')).match(/^Mdplan-Key: .*$/gm) ?? []
  expect(keys).toHaveLength(1)
  expect(keys[0]).toMatch(/^Mdplan-Key: mdplan13-plan-[0-9a-f]{8}-A-a1-[0-9a-f]{6}$/)
  expect(keys[0]).not.toBe(`Mdplan-Key: ${cancelled}`)
}

/** The row's job: its key and Slurm job id, once it waits in the queue. */
async function queuedJob(plan: string): Promise<{key: string; id: string}> {
  const rows = await waitForTable(plan, (r) => /slurm: \d+/.test(r.A!.notes) && /queued: since/.test(r.A!.notes), 60_000)
  return {key: /job: hpc ([^;\s]+)/.exec(rows.A!.notes)![1]!, id: /slurm: (\d+)/.exec(rows.A!.notes)![1]!}
}

describe('a queued Slurm job cancelled by hand (fake sbatch/squeue/scontrol/scancel)', () => {
  it('scancel while it waits: the attempt ends, the agent completes under a new key, once, no attempt spent', async () => {
    const slurm = await fakeSlurm()
    // Held in the queue until the test lets it go.
    await slurm.faults({holdMs: 600_000})
    const setup = await oneAgent(slurm.shared)
    const run = startCli(['run', setup.plan], {cwd: setup.repo.root, env: {...slurm.env, ...gitEnv()}})
    const {key, id} = await queuedJob(setup.plan)
    expect(await readAgentLog(setup.log).then((side) => side.lines)).toEqual([])
    const cancelledAt = Date.now()
    expect((await execa('scancel', [id], {env: slurm.env, reject: false})).exitCode).toBe(0)
    // The next job of the agent is not held.
    await slurm.faults({})
    const result = await run
    const took = Date.now() - cancelledAt
    console.log(`never-moving slurm (fake): completed ${took} ms after the scancel`)
    expect(result.exitCode, result.all).toBe(0)
    expect(result.all).toMatch(/A: the slurm job mdplan\S+ left the queue \(CANCELLED\) before it started; launched again under a new key \(no attempt used\)/)
    await expectOnce(setup, key)
    const state = await slurm.state()
    expect(state.jobs.map((job) => job.name)).toEqual([key, expect.not.stringMatching(key)])
    expect(state.jobs.map((job) => job.state)).toEqual(['CANCELLED', 'COMPLETED'])
    expect(state.cancelled).toEqual([Number(id)])
    expect(state.started).toEqual([state.jobs[1]!.id])
    // Slurm's answer settles (5 s) before the job counts as gone; then it goes again at once.
    expect(took).toBeGreaterThanOrEqual(5_000)
    expect(took).toBeLessThan(60_000)
    await setup.repo.cleanup()
  }, 120_000)
})

// Set by scripts/test-slurm.js once a real single-node cluster is up: the shared job folder.
const shared = process.env.MDPLAN_REAL_SLURM
if (!shared) console.log('hosts-never-moving-slurm: the real-Slurm case is skipped: needs a real Slurm cluster (run `npm run test:slurm -- test/e2e/hosts/hosts-never-moving-slurm.test.ts`)')

describe.skipIf(!shared)('a queued job of a real Slurm cluster cancelled by hand', () => {
  it('scancel while it waits behind a job that holds the node: the agent completes under a new key, once, no attempt spent', async () => {
    // A job of our own holds every CPU of the one node: the agent's job waits (Resources) until the test lets it go.
    const cpus = (await execa('sinfo', ['--noheader', '--format=%c', '--partition=debug'])).stdout.trim().split('\n')[0]!
    const blocker = (await execa('sbatch', ['--parsable', '--partition=debug', `--cpus-per-task=${cpus}`, `--chdir=${shared!}`, '--output=/dev/null', '--wrap=sleep 600'])).stdout.trim().split(';')[0]!
    try {
      const setup = await oneAgent(shared!, ', cpus: 1')
      const run = startCli(['run', setup.plan], {cwd: setup.repo.root, env: gitEnv()})
      const {key, id} = await queuedJob(setup.plan)
      const cancelledAt = Date.now()
      await execa('scancel', [id])
      await execa('scancel', [blocker])
      const result = await run
      console.log(`never-moving slurm (real): completed ${Date.now() - cancelledAt} ms after the scancel`)
      expect(result.exitCode, result.all).toBe(0)
      expect(result.all).toMatch(/left the queue \(CANCELLED\) before it started; launched again under a new key \(no attempt used\)/)
      await expectOnce(setup, key)
      await setup.repo.cleanup()
    } finally {
      await execa('scancel', [blocker], {reject: false})
    }
  }, 300_000)
})
