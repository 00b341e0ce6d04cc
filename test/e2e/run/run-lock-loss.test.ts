import {existsSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'
import {duplicates, logged, readAgentLog} from '../../helpers/agent-log.js'

/**
 * The run lock from the user's side: Ctrl-Z (SIGSTOP) on a run, then a second
 * run in another terminal after the stale window; a lock directory removed or
 * rewritten under a live run. Real processes in a real git repository;
 * launches counted from the agents' side (one `start` line per attempt).
 */
let repo: TempRepo | undefined
beforeAll(isolateGitConfig)
afterEach(async () => {
  await repo?.cleanup()
  repo = undefined
})

/** The stale window, shortened for the test (the default is 30 s). */
const staleMs = 2000
const env = {MDPLAN_LOCK_STALE_MS: String(staleMs)}

async function setup(): Promise<{plan: string; log: string; go: () => void}> {
  repo = await tempRepo()
  const log = join(repo.root, 'agents.log')
  await repo.commit('plan', {
    'plan.md': shellPlan(
      {
        A: {script: logged(log, 'while [ ! -f go ]; do sleep 0.05; done')},
        B: {deps: ['A'], script: logged(log, 'true')}
      },
      {frontMatter: 'concurrency: 1'}
    )
  })
  return {plan: join(repo.root, 'plan.md'), log, go: () => writeFileSync(join(repo!.root, 'go'), '')}
}

/** Resolve once the agent log has a `start` line for `key` (`A#1`). */
async function started(log: string, key: string): Promise<void> {
  for (let waited = 0; !(await readAgentLog(log)).starts.has(key); waited += 50) {
    if (waited > 15_000) throw new Error(`${key} never started`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/**
 * A run of `plan` (in its folder, `--json`), once A runs: Ctrl-Z, then another run takes the plan over
 * (its owner.json) and the agent is let go and ends while the first is stopped (its process is the spawn
 * helper's child); then `kill -CONT`. The plan as it was then, and the first run's end, which must be exit 3.
 */
async function runTakenOverWhileStopped(plan: string, log: string, go: () => void): Promise<{before: Buffer; result: Awaited<ReturnType<typeof startCli>>}> {
  const run = startCli(['run', 'plan.md', '--json'], {cwd: dirname(plan), env})
  await waitForTable(plan, (rows) => rows.A?.status === 'in_progress')
  await started(log, 'A#1')
  await takenOverWhileStopped(run.pid!, plan, log, go)
  const before = readFileSync(plan)
  const result = await run
  expect(result.exitCode, result.all).toBe(3)
  return {before, result}
}

async function takenOverWhileStopped(pid: number, plan: string, log: string, go: () => void): Promise<void> {
  process.kill(pid, 'SIGSTOP')
  try {
    writeFileSync(`${plan}.lock/owner.json`, JSON.stringify({pid: 1, host: 'elsewhere', startedAt: '2026-01-01T00:00:00.000Z'}))
    go()
    for (let waited = 0; (await readAgentLog(log)).unfinished.length > 0; waited += 20) {
      if (waited > 15_000) throw new Error('A never ended')
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  } finally {
    process.kill(pid, 'SIGCONT')
  }
}

describe('a stopped run keeps its lock', () => {
  it('Ctrl-Z, then a second run after the stale window: exit 3 naming the stopped pid; `kill -CONT` and the first finishes, each agent once', async () => {
    const {plan, log, go} = await setup()
    const first = startCli(['run', 'plan.md'], {cwd: repo!.root, env})
    await waitForTable(plan, (rows) => rows.A?.status === 'in_progress')
    await started(log, 'A#1')
    const pid = first.pid!
    process.kill(pid, 'SIGSTOP')
    try {
      // Not a synchronisation: the point is that the stale window has passed without a refresh.
      await new Promise((resolve) => setTimeout(resolve, staleMs * 2))
      const second = await runCli(['run', 'plan.md'], {cwd: repo!.root, env})
      expect(second.exitCode, second.all).toBe(3)
      expect(second.stderr).toContain(`pid ${pid}`)
      expect(second.stderr).toMatch(/that process is stopped \(Ctrl-Z or SIGSTOP\): continue it with `fg` in its terminal or `kill -CONT \d+`/)
      expect(second.stderr.trim().split('\n')).toHaveLength(1)
      const side = await readAgentLog(log)
      expect([...side.starts.keys()]).toEqual(['A#1'])
      expect(JSON.parse(readFileSync(`${plan}.lock/owner.json`, 'utf8')).pid).toBe(pid)
    } finally {
      process.kill(pid, 'SIGCONT')
    }
    go()
    const result = await first
    expect(result.exitCode, result.all).toBe(0)
    expect(result.all).not.toMatch(/lock was lost/)
    const side = await readAgentLog(log)
    expect(duplicates(side)).toEqual([])
    expect([...side.starts.keys()].sort()).toEqual(['A#1', 'B#1'])
    const {rows} = await readTable(plan)
    expect(rows.A!.status).toBe('completed')
    expect(rows.B!.status).toBe('completed')
    expect(existsSync(`${plan}.lock`)).toBe(false)
  }, 60_000)
})

describe('a run that loses its lock', () => {
  for (const [how, lose] of [
    ['its lock directory is removed', (plan: string) => rmSync(`${plan}.lock`, {recursive: true, force: true})],
    ['its owner.json is rewritten by another run', (plan: string) => writeFileSync(`${plan}.lock/owner.json`, JSON.stringify({pid: 1, host: 'elsewhere', startedAt: '2026-01-01T00:00:00.000Z'}))]
  ] as const) {
    it(`${how}: it stops launching at once, leaves its agent's job to the plan's next owner (row resumable), says so and exits 3; the next run finishes`, async () => {
      const {plan, log, go} = await setup()
      const run = startCli(['run', 'plan.md', '--json'], {cwd: repo!.root, env})
      await waitForTable(plan, (rows) => rows.A?.status === 'in_progress')
      await started(log, 'A#1')
      lose(plan)
      const result = await run
      expect(result.exitCode, result.all).toBe(3)
      expect(result.stdout).toMatch(/"type":"warning","message":"the run lock was lost \([^"]*plan\.md\.lock[^"]*\): nothing launches and the table is not written any more/)
      // B never launched: nothing started after the loss. A is a job of its own, which the run that lost the lock
      // leaves running (the plan's next owner may follow it already: ending it would make that run start it again).
      const side = await readAgentLog(log)
      expect([...side.starts.keys()]).toEqual(['A#1'])
      expect(side.unfinished).toEqual(['A#1'])
      expect((await readTable(plan)).rows.A!.status).toBe('in_progress')

      rmSync(`${plan}.lock`, {recursive: true, force: true})
      go()
      const again = await runCli(['run', 'plan.md'], {cwd: repo!.root, env})
      expect(again.exitCode, again.all).toBe(0)
      // The next run attaches to A's job (it is not started again) and then launches B: each started once in all.
      const after = await readAgentLog(log, side.lines.length)
      expect(after.starts).toEqual(new Map([['B#1', 1]]))
      const whole = await readAgentLog(log)
      expect(duplicates(whole)).toEqual([])
      expect(whole.unfinished).toEqual([])
      const {rows} = await readTable(plan)
      expect(rows.A!.status).toBe('completed')
      expect(rows.B!.status).toBe('completed')
    }, 60_000)
  }

  it('stopped (Ctrl-Z) while another run takes the plan over, then continued: it writes nothing more (not even the completion it finds on waking), exits 3, and the next run finishes', async () => {
    const {plan, log, go} = await setup()
    const {before, result} = await runTakenOverWhileStopped(plan, log, go)
    expect(result.stdout).toMatch(/the run lock was lost/)
    // The table is the new owner's now: the woken run left it byte for byte as it was.
    expect(readFileSync(plan).equals(before)).toBe(true)
    expect((await readTable(plan)).rows.A!.status).toBe('in_progress')

    rmSync(`${plan}.lock`, {recursive: true, force: true})
    const again = await runCli(['run', 'plan.md'], {cwd: repo!.root, env})
    expect(again.exitCode, again.all).toBe(0)
    const {rows} = await readTable(plan)
    expect(rows.A!.status).toBe('completed')
    expect(rows.B!.status).toBe('completed')
    expect((await readAgentLog(log)).starts.get('B#1')).toBe(1)
  }, 60_000)

  it('stopped while another run takes the plan over, and its agent asks a question meanwhile: continued, it writes no Open Questions entry either, exits 3', async () => {
    repo = await tempRepo()
    const log = join(repo.root, 'agents.log')
    const ask = 'while [ ! -f go ]; do sleep 0.05; done; printf "RESULT: QUESTION\\nQuestion: Which store?\\nContext: none\\nOptions:\\n1. Redis\\n2. SQLite\\n"'
    await repo.commit('plan', {'plan.md': shellPlan({A: {script: logged(log, ask)}}, {frontMatter: 'concurrency: 1'})})
    const plan = join(repo.root, 'plan.md')
    const {before} = await runTakenOverWhileStopped(plan, log, () => writeFileSync(join(repo!.root, 'go'), ''))
    expect(readFileSync(plan).equals(before)).toBe(true)
    expect(readFileSync(plan, 'utf8')).not.toMatch(/^## Open Questions/m)
  }, 60_000)

  for (const [how, frontMatter] of [
    ['commit: true', 'concurrency: 1\ncommit: true'],
    ['worktree isolation', 'concurrency: 1\nisolation: worktree']
  ] as const) {
    it(`stopped while another run takes the plan over, its agent done meanwhile (${how}): continued, it commits and merges nothing; the next run takes the work in once`, async () => {
      repo = await tempRepo()
      const log = join(repo.root, 'agents.log')
      const work = logged(log, `while [ ! -f '${join(repo.root, 'go')}' ]; do sleep 0.05; done; echo "$MDPLAN_ATTEMPT" >> a.txt`)
      await repo.commit('plan', {'plan.md': shellPlan({A: {script: work, creates: ['a.txt']}}, {frontMatter})})
      const plan = join(repo.root, 'plan.md')
      const head = await repo.git('rev-parse', 'HEAD')
      const {before} = await runTakenOverWhileStopped(plan, log, () => writeFileSync(join(repo!.root, 'go'), ''))
      // The repository is the new owner's now: no commit, no merge, the plan byte for byte as it was.
      expect(await repo.git('rev-parse', 'HEAD')).toBe(head)
      expect(readFileSync(plan).equals(before)).toBe(true)
      expect((await readTable(plan)).rows.A!.status).toBe('in_progress')

      rmSync(`${plan}.lock`, {recursive: true, force: true})
      const again = await runCli(['run', 'plan.md'], {cwd: repo.root, env})
      expect(again.exitCode, again.all).toBe(0)
      expect((await readTable(plan)).rows.A!.status).toBe('completed')
      // One commit takes A's work in (a shell agent cannot resume, so it ran again in the same files).
      const commits = (await repo.git('log', '--format=%s', `${head}..HEAD`, '--', 'a.txt')).trim().split('\n')
      expect(commits).toHaveLength(1)
    }, 60_000)
  }
})
