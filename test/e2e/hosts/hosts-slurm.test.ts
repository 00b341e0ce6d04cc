import {existsSync} from 'node:fs'
import {mkdtemp} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'
import {duplicates, logged, readAgentLog} from '../../helpers/agent-log.js'
import {fakeSlurm, type FakeSlurm} from '../../helpers/fake-slurm.js'

beforeAll(isolateGitConfig)

const gitEnv = () => ({GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'})

async function logFile(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), 'mdplan-slurm-log-')), 'agents.log')
}

/** A plan whose agents each write `out/<ID>.txt` on a slurm host (the fake), with commit: true. */
async function slurmPlan(slurm: FakeSlurm, log: string, agents: Record<string, {deps?: string[]; sleep?: number; extra?: string}>, front: string[] = []) {
  const repo = await tempRepo()
  const spec = Object.fromEntries(
    Object.entries(agents).map(([id, a]) => [
      id,
      {deps: a.deps, creates: [`out/${id}.txt`], script: logged(log, `sleep ${a.sleep ?? 0.05}\nmkdir -p out\necho "${id} $MDPLAN_ATTEMPT" > out/${id}.txt${a.extra ? `\n${a.extra}` : ''}`)}
    ])
  )
  const frontMatter = ['concurrency: 4', 'commit: true', 'hosts:', `  hpc: {type: slurm, dir: '${slurm.shared}', partition: debug, slots: 4}`, 'host: hpc', ...front].join('\n')
  await repo.commit('plan', {'plan.md': shellPlan(spec, {frontMatter})})
  return {repo, plan: join(repo.root, 'plan.md')}
}

const env = (slurm: FakeSlurm) => ({...slurm.env, ...gitEnv()})

describe('agents as Slurm jobs (a fake sbatch/squeue/scontrol/scancel)', () => {
  it('runs a DAG as sbatch jobs named by their keys: once each, all work merged, the job id and queue time in Notes', async () => {
    const slurm = await fakeSlurm()
    await slurm.faults({holdMs: 300})
    const log = await logFile()
    const {repo, plan} = await slurmPlan(slurm, log, {A: {}, B: {deps: ['A']}, C: {deps: ['A']}, D: {deps: ['B', 'C']}})
    const result = await runCli(['run', plan, '--max-attempts', '1'], {cwd: repo.root, env: env(slurm)})
    expect(result.exitCode, result.all).toBe(0)
    const side = await readAgentLog(log)
    expect(duplicates(side)).toEqual([])
    expect([...side.starts.keys()].sort()).toEqual(['A#1', 'B#1', 'C#1', 'D#1'])
    const {rows} = await readTable(plan)
    const state = await slurm.state()
    for (const id of ['A', 'B', 'C', 'D']) {
      expect(rows[id]!.status).toBe('completed')
      expect(rows[id]!.notes).toMatch(/host: hpc/)
      expect(rows[id]!.notes).toMatch(/slurm: \d+/)
      expect(rows[id]!.notes).toMatch(/queued: \d+ms|queued: \d+s/)
      expect(await repo.read(`out/${id}.txt`)).toBe(`${id} 1\n`)
      const job = state.jobs.filter((j) => new RegExp(`^mdplan13-plan-[0-9a-f]{8}-${id}-a1-`).test(j.name))
      expect(job).toHaveLength(1)
    }
    expect(await repo.git('status', '--porcelain', '--', 'out')).toBe('')
    // Collected jobs' folders are removed.
    expect(existsSync(join(slurm.shared, 'jobs')) ? (await import('node:fs')).readdirSync(join(slurm.shared, 'jobs')).filter((n) => !n.startsWith('.')) : []).toEqual([])
    await repo.cleanup()
  }, 60_000)

  it('counts --agent-timeout from the start, not the submit: a job queued longer than the timeout still completes; status says it is queued', async () => {
    const slurm = await fakeSlurm()
    // Queued longer than the timeout; the timeout leaves the job ample time once it runs (a loaded machine).
    await slurm.faults({holdMs: 8000})
    const log = await logFile()
    const {repo, plan} = await slurmPlan(slurm, log, {A: {}})
    const run = startCli(['run', plan, '--max-attempts', '1', '--agent-timeout', '6s'], {cwd: repo.root, env: env(slurm)})
    await waitForTable(plan, (rows) => /queued: since/.test(rows.A!.notes))
    const status = await runCli(['status', plan], {cwd: repo.root})
    expect(status.stdout).toMatch(/In progress: +A \(queued on hpc since \d\d:\d\d:\d\dZ\)/)
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    expect((await readTable(plan)).rows.A!.notes).toMatch(/queued: ([89]|\d\d)s/)
    await repo.cleanup()
  }, 60_000)

  it('a duplicate submit of one key: the second job waits (singleton) and is cancelled; the agent runs once', async () => {
    const slurm = await fakeSlurm()
    await slurm.faults({duplicate: 1})
    const log = await logFile()
    const {repo, plan} = await slurmPlan(slurm, log, {A: {sleep: 1}})
    const result = await runCli(['run', plan, '--max-attempts', '1'], {cwd: repo.root, env: env(slurm)})
    expect(result.exitCode, result.all).toBe(0)
    const side = await readAgentLog(log)
    expect([...side.starts]).toEqual([['A#1', 1]])
    const state = await slurm.state()
    expect(state.jobs.map((j) => j.name)).toEqual([state.jobs[0]!.name, state.jobs[0]!.name])
    // The duplicate is cancelled while it waits; on a loaded machine the cancel may come after job 1 ended and
    // Slurm let job 2 start: its job script then finds the key's folder taken and runs nothing (the agent's own
    // log above counts one start either way).
    expect(state.started?.[0]).toBe(1)
    expect(state.cancelled).toEqual([2])
    expect(await repo.read('out/A.txt')).toBe('A 1\n')
    await repo.cleanup()
  }, 60_000)

  it('a submit whose answer is lost: the job is found by its key in the queue, not submitted again', async () => {
    const slurm = await fakeSlurm()
    await slurm.faults({loseAnswer: 1})
    const log = await logFile()
    const {repo, plan} = await slurmPlan(slurm, log, {A: {}})
    const result = await runCli(['run', plan, '--max-attempts', '1'], {cwd: repo.root, env: env(slurm)})
    expect(result.exitCode, result.all).toBe(0)
    expect([...(await readAgentLog(log)).starts]).toEqual([['A#1', 1]])
    expect((await slurm.state()).jobs).toHaveLength(1)
    expect((await readTable(plan)).rows.A!.notes).toMatch(/slurm: 1\b/)
    await repo.cleanup()
  }, 60_000)

  it('coordinator SIGKILL, then a rerun: it re-attaches to the running jobs (no relaunch) and merges their work', async () => {
    const slurm = await fakeSlurm()
    const log = await logFile()
    const {repo, plan} = await slurmPlan(slurm, log, {A: {sleep: 2}, B: {sleep: 2}, C: {deps: ['A', 'B']}})
    const first = startCli(['run', plan, '--max-attempts', '1'], {cwd: repo.root, env: env(slurm)})
    await waitForTable(plan, (rows) => /slurm: \d+/.test(rows.A!.notes) && /slurm: \d+/.test(rows.B!.notes), 30_000)
    first.kill('SIGKILL')
    await first
    const second = await runCli(['run', plan, '--max-attempts', '1'], {cwd: repo.root, env: env(slurm)})
    expect(second.exitCode, second.all).toBe(0)
    const side = await readAgentLog(log)
    expect(duplicates(side)).toEqual([])
    expect([...side.starts.keys()].sort()).toEqual(['A#1', 'B#1', 'C#1'])
    expect((await slurm.state()).jobs).toHaveLength(3)
    for (const id of ['A', 'B', 'C']) expect(await repo.read(`out/${id}.txt`)).toBe(`${id} 1\n`)
    await repo.cleanup()
  }, 60_000)

  it('a job Slurm has forgotten: its exit code and result commit in the job folder are the answer', async () => {
    const slurm = await fakeSlurm()
    const log = await logFile()
    const {repo, plan} = await slurmPlan(slurm, log, {A: {sleep: 1}})
    const first = startCli(['run', plan, '--max-attempts', '1'], {cwd: repo.root, env: env(slurm)})
    const rows = await waitForTable(plan, (r) => /slurm: \d+/.test(r.A!.notes), 30_000)
    first.kill('SIGKILL')
    await first
    const key = /job: hpc ([^;\s]+)/.exec(rows.A!.notes)![1]!
    await slurm.faults({forget: true})
    // The job ends on its own; once its exit code is in the folder, Slurm is asked (and forgets it).
    await waitFor(() => existsSync(join(slurm.shared, 'jobs', key, 'rc')))
    await slurm.state()
    const second = await runCli(['run', plan, '--max-attempts', '1'], {cwd: repo.root, env: env(slurm)})
    expect(second.exitCode, second.all).toBe(0)
    expect((await slurm.state()).jobs).toEqual([])
    expect([...(await readAgentLog(log)).starts]).toEqual([['A#1', 1]])
    expect(await repo.read('out/A.txt')).toBe('A 1\n')
    expect(await repo.git('log', '--format=%B')).toContain(`Mdplan-Key: ${key}`)
    await repo.cleanup()
  }, 60_000)

  it('a worker lost (NODE_FAIL) fails the attempt as host lost; it is retried under a new key, and the zombie\'s late result is never merged', async () => {
    const slurm = await fakeSlurm()
    await slurm.faults({nodeFail: '-A-a1-'})
    const log = await logFile()
    const {repo, plan} = await slurmPlan(slurm, log, {A: {sleep: 2}})
    const result = await runCli(['run', plan, '--max-attempts', '2'], {cwd: repo.root, env: env(slurm)})
    expect(result.exitCode, result.all).toBe(0)
    const {rows} = await readTable(plan)
    expect(rows.A!.status).toBe('completed')
    expect(rows.A!.notes).toMatch(/attempt 1: host lost: hpc/)
    // The zombie (attempt 1) finishes after the run; a rerun must not merge it.
    await waitFor(async () => (await readAgentLog(log)).unfinished.length === 0)
    const again = await runCli(['run', plan], {cwd: repo.root, env: env(slurm)})
    expect(again.exitCode, again.all).toBe(0)
    expect(await repo.read('out/A.txt')).toBe('A 2\n')
    const bodies = await repo.git('log', '--format=%B')
    expect(bodies).toMatch(/Mdplan-Key: mdplan13-plan-[0-9a-f]{8}-A-a2-/)
    expect(bodies).not.toMatch(/Mdplan-Key: mdplan13-plan-[0-9a-f]{8}-A-a1-/)
    expect((await slurm.state()).zombies).toHaveLength(1)
    await repo.cleanup()
  }, 60_000)

  it('Ctrl-C cancels the running jobs (scancel) and leaves the rows resumable; a rerun completes them', async () => {
    const slurm = await fakeSlurm()
    const log = await logFile()
    // Long the first time, short once the flag exists (the rerun).
    const flag = `${log}.rerun`
    const {repo, plan} = await slurmPlan(slurm, log, {A: {sleep: 0, extra: `[ -f '${flag}' ] || sleep 30`}})
    const first = startCli(['run', plan, '--max-attempts', '1'], {cwd: repo.root, env: env(slurm)})
    await waitFor(async () => (await readAgentLog(log)).starts.size === 1)
    first.kill('SIGINT')
    const stopped = await first
    expect(stopped.exitCode, stopped.all).toBe(130)
    const state = await slurm.state()
    expect(state.cancelled).toEqual([1])
    expect((await readAgentLog(log)).unfinished).toEqual(['A#1'])
    expect((await readTable(plan)).rows.A!.status).toBe('in_progress')
    // Slurm still lists the cancelled job under the key: the rerun submits it again (the same key), it is not a failure.
    await (await import('node:fs/promises')).writeFile(flag, '')
    const second = await runCli(['run', plan, '--max-attempts', '1'], {cwd: repo.root, env: env(slurm)})
    expect(second.exitCode, second.all).toBe(0)
    expect((await readTable(plan)).rows.A!.status).toBe('completed')
    expect((await slurm.state()).started).toEqual([1, 2])
    expect(await repo.read('out/A.txt')).toBe('A 1\n')
    await repo.cleanup()
  }, 60_000)

  it('an answered agent goes on in the job folder its session was made in (the shared dir), with the work it did before asking', async () => {
    const slurm = await fakeSlurm()
    const log = await logFile()
    const pwds = `${log}.pwds`
    const script = logged(log, [
      `echo "$PWD" >> '${pwds}'`,
      'if [ -z "${MDPLAN_ANSWER:-}" ]; then',
      "  echo 'step 1 of 2' > partial.txt; printf 'RESULT: QUESTION\\nQuestion: go on?\\n'",
      'else echo "partial: $(cat partial.txt 2>&1)" > seen.txt; fi'
    ].join('\n'))
    const repo = await tempRepo()
    const front = ['hosts:', `  hpc: {type: slurm, dir: '${slurm.shared}', partition: debug, slots: 4}`, 'host: hpc'].join('\n')
    await repo.commit('plan', {'plan.md': shellPlan({A: {script, creates: ['partial.txt', 'seen.txt']}}, {frontMatter: front})})
    const plan = join(repo.root, 'plan.md')
    expect((await runCli(['run', plan], {cwd: repo.root, env: env(slurm)})).exitCode).toBe(1)
    expect((await runCli(['answer', plan, 'A', 'yes'], {cwd: repo.root, env: env(slurm)})).exitCode).toBe(0)
    const second = await runCli(['run', plan], {cwd: repo.root, env: env(slurm)})
    expect(second.exitCode, second.all).toBe(0)
    expect((await slurm.state()).started).toEqual([1, 2])
    const [asking, resumed] = (await (await import('node:fs/promises')).readFile(pwds, 'utf8')).split('\n')
    expect(resumed).toBe(asking)
    expect(await repo.read('seen.txt')).toBe('partial: step 1 of 2\n')
    expect((await repo.git('log', '--format=%B')).match(/Mdplan-Key: mdplan13-plan-[0-9a-f]{8}-A-a1-/g)).toHaveLength(1)
    await repo.cleanup()
  }, 60_000)

  it('preflight: an unreachable controller is one line with the fix, exit 2, nothing submitted', async () => {
    const slurm = await fakeSlurm()
    await slurm.faults({down: true})
    const log = await logFile()
    const {repo, plan} = await slurmPlan(slurm, log, {A: {}})
    const before = await readTable(plan)
    const result = await runCli(['run', plan], {cwd: repo.root, env: env(slurm)})
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toMatch(/host hpc \(slurm\): .*Unable to contact slurm controller.*check that `sinfo --partition debug` works/)
    expect((await readTable(plan)).text).toBe(before.text)
    await repo.cleanup()
  }, 60_000)
})

async function waitFor(predicate: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
