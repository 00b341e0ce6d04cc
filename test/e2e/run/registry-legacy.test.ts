import {existsSync, readFileSync} from 'node:fs'
import {mkdir, mkdtemp, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {execa} from 'execa'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan, startCli} from '../../helpers/run-cli.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {isAlive} from '../../../src/store/is-alive.js'

beforeAll(isolateGitConfig)

const gitEnv = () => ({GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'})
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const text = (file: string): string => (existsSync(file) ? readFileSync(file, 'utf8') : '')

/** An agent that holds a lock on its own file while it runs, so a second one beside it writes `overlap <name>`. */
function slowAgent(log: string, name: string, seconds: number): string {
  return `exec 9>>'${log}.${name}.flock'\nflock -n 9 || echo "overlap ${name}" >> '${log}'\n${logged(log, `sleep ${seconds}`)}`
}

async function waitFor(predicate: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await sleep(20)
  }
}

const overlaps = (log: string): string[] => text(log).split('\n').filter((line) => line.startsWith('overlap'))

async function logFile(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), 'mdplan-legacy-log-')), 'agents.log')
}

/**
 * What a SIGKILLed run of an older release (dedfb2e and before) leaves: the agent running in its own
 * process group with the environment mdplan gave it (`env`, `args` after the script), the row
 * `in_progress` with its Agent ID, and the registry under the run's folder named by the plan's old key.
 */
/** `seconds`: how long the orphan lives unless a run ends it (long enough to outlive another plan's run on a loaded machine). */
async function olderOrphan(input: {repo: string; plan: string; key: string; log: string; name: string; env: Record<string, string>; args?: string[]; agentId: string; seconds?: number}) {
  const orphan = execa('sh', ['-c', slowAgent(input.log, input.name, input.seconds ?? 4), 'sh', ...(input.args ?? [])], {cwd: input.repo, env: {PATH: process.env.PATH!, MDPLAN_AGENT: 'A', MDPLAN_ATTEMPT: '1', ...input.env}, extendEnv: false, detached: true, reject: false})
  await waitFor(() => text(input.log).includes('start A'))
  const stat = readFileSync(`/proc/${orphan.pid}/stat`, 'utf8')
  const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
  await mkdir(join(input.repo, '.mdplan', 'run'), {recursive: true})
  await writeFile(join(input.repo, '.mdplan', 'run', `${input.key}.agents`), `+${orphan.pid} ${start}\n`, {flag: 'a'})
  const file = join(input.repo, input.plan)
  await writeFile(file, text(file).replace('| A | pending | — |', `| A | in_progress | ${input.agentId} |`))
  // In an object: the subprocess is a thenable, and returning it from an async function would wait for its end.
  return {orphan}
}

describe('a rerun ends only its own plan’s leftover agents (git repository)', () => {
  it('`mdplan run plan.md.md` beside a running `mdplan run plan.md` leaves plan.md’s agents alone (its older key is `plan.md`)', async () => {
    const log = await logFile()
    const other = await logFile()
    const repo = await tempRepo()
    await repo.commit('plans', {'plan.md': shellPlan({A: {script: slowAgent(log, 'A', 4)}, B: {script: slowAgent(log, 'B', 4)}}), 'plan.md.md': shellPlan({A: {script: logged(other, 'true')}})})
    const first = startCli(['run', 'plan.md'], {cwd: repo.root, env: gitEnv()})
    await waitFor(() => (text(log).match(/^start/gm) ?? []).length === 2)
    const second = await runCli(['run', 'plan.md.md'], {cwd: repo.root, env: gitEnv()})
    expect(second.exitCode, second.all).toBe(0)
    expect(second.all).not.toContain('ended')
    const done = await first
    expect(done.exitCode, done.all).toBe(0)
    const side = await readAgentLog(log)
    // Each of plan.md's agents ran once, to its end: none was killed and relaunched.
    expect(Object.fromEntries(side.starts), side.lines.join('\n')).toEqual({'A#1': 1, 'B#1': 1})
    expect(side.unfinished).toEqual([])
    expect(overlaps(log)).toEqual([])
    const table = await readTable(join(repo.root, 'plan.md'))
    expect([table.rows.A!.status, table.rows.B!.status]).toEqual(['completed', 'completed'])
    await repo.cleanup()
  }, 60_000)

  it('an older release’s orphan of `Plan.md` (registry `plan.agents`, the key before the digest) is ended before A runs again', async () => {
    const log = await logFile()
    const repo = await tempRepo()
    await repo.commit('plan', {'Plan.md': shellPlan({A: {script: slowAgent(log, 'A', 4)}})})
    const plan = join(repo.root, 'Plan.md')
    // It lives 30 s unless the run ends it: a run slow to start on a loaded machine must still find it alive.
    const {orphan} = await olderOrphan({repo: repo.root, plan: 'Plan.md', key: 'plan', log, name: 'A', env: {MDPLAN_PLAN: plan, MDPLAN_AGENT_ID: 'sh-0ld0ld01'}, agentId: 'sh-0ld0ld01', seconds: 30})
    const second = await runCli(['run', 'Plan.md'], {cwd: repo.root, env: gitEnv()})
    await orphan
    expect(second.exitCode, second.all).toBe(0)
    expect(second.all).toContain('ended 1 agent process group a killed run left running')
    await sleep(300)
    expect(overlaps(log), text(log)).toEqual([])
    expect((await readAgentLog(log)).starts.get('A#1')).toBe(2)
    expect((await readTable(plan)).rows.A!.status).toBe('completed')
    await repo.cleanup()
  }, 60_000)

  it('an older release’s orphan found by its Agent ID on the command line (claude’s `--session-id`), with no MDPLAN_PLAN', async () => {
    const log = await logFile()
    const repo = await tempRepo()
    await repo.commit('plan', {'Plan.md': shellPlan({A: {script: slowAgent(log, 'A', 4)}})})
    const id = '0b1e9c1e-5d1a-4c55-9f0e-3c1f2f6f7a10'
    const {orphan} = await olderOrphan({repo: repo.root, plan: 'Plan.md', key: 'plan', log, name: 'A', env: {}, args: ['--session-id', id], agentId: id, seconds: 30})
    const second = await runCli(['run', 'Plan.md'], {cwd: repo.root, env: gitEnv()})
    await orphan
    expect(second.exitCode, second.all).toBe(0)
    expect(second.all).toContain('ended 1 agent process group a killed run left running')
    await sleep(300)
    expect(overlaps(log), text(log)).toEqual([])
    await repo.cleanup()
  }, 60_000)

  it('`plan.md`’s run leaves an older release’s orphan of `Plan.md` in their shared `plan.agents` to `Plan.md`’s rerun', async () => {
    const log = await logFile()
    const quick = await logFile()
    const repo = await tempRepo()
    await repo.commit('plans', {'Plan.md': shellPlan({A: {script: slowAgent(log, 'A', 4)}}), 'plan.md': shellPlan({Q: {script: logged(quick, 'true')}})})
    const upper = join(repo.root, 'Plan.md')
    const {orphan} = await olderOrphan({repo: repo.root, plan: 'Plan.md', key: 'plan', log, name: 'A', env: {MDPLAN_PLAN: upper, MDPLAN_AGENT_ID: 'sh-0ld0ld02'}, agentId: 'sh-0ld0ld02', seconds: 30})
    const lower = await runCli(['run', 'plan.md'], {cwd: repo.root, env: gitEnv()})
    expect(lower.exitCode, lower.all).toBe(0)
    expect(lower.all).not.toContain('ended')
    expect(isAlive(orphan.pid!)).toBe(true)
    // Still on record for its own plan's rerun, which ends it before A runs again.
    const rerun = await runCli(['run', 'Plan.md'], {cwd: repo.root, env: gitEnv()})
    await orphan
    expect(rerun.exitCode, rerun.all).toBe(0)
    expect(rerun.all).toContain('ended 1 agent process group a killed run left running')
    await sleep(300)
    expect(overlaps(log), text(log)).toEqual([])
    await repo.cleanup()
  }, 60_000)

  it('an older release’s orphan of `plan.md.md` in `plan.md.agents` (today `plan.md`’s registry name) outlives `plan.md`’s run and is ended by `plan.md.md`’s rerun', async () => {
    const log = await logFile()
    const quick = await logFile()
    const repo = await tempRepo()
    await repo.commit('plans', {'plan.md.md': shellPlan({A: {script: slowAgent(log, 'A', 4)}}), 'plan.md': shellPlan({Q: {script: logged(quick, 'sleep 0.3')}})})
    const doubled = join(repo.root, 'plan.md.md')
    const {orphan} = await olderOrphan({repo: repo.root, plan: 'plan.md.md', key: 'plan.md', log, name: 'A', env: {MDPLAN_PLAN: doubled, MDPLAN_AGENT_ID: 'sh-0ld0ld03'}, agentId: 'sh-0ld0ld03', seconds: 30})
    const single = await runCli(['run', 'plan.md'], {cwd: repo.root, env: gitEnv()})
    expect(single.exitCode, single.all).toBe(0)
    expect(single.all).not.toContain('ended')
    expect((await readAgentLog(quick)).starts.get('Q#1')).toBe(1)
    expect(isAlive(orphan.pid!)).toBe(true)
    const rerun = await runCli(['run', 'plan.md.md'], {cwd: repo.root, env: gitEnv()})
    await orphan
    expect(rerun.exitCode, rerun.all).toBe(0)
    expect(rerun.all).toContain('ended 1 agent process group a killed run left running')
    await sleep(300)
    expect(overlaps(log), text(log)).toEqual([])
    expect((await readTable(doubled)).rows.A!.status).toBe('completed')
    await repo.cleanup()
  }, 60_000)

  it('an older release’s orphan that nothing ties to a plan (no MDPLAN_PLAN, no known Agent ID): the run refuses, exit 3, naming it, and launches nothing', async () => {
    const log = await logFile()
    const repo = await tempRepo()
    await repo.commit('plan', {'Plan.md': shellPlan({A: {script: slowAgent(log, 'A', 4)}})})
    const plan = join(repo.root, 'Plan.md')
    const {orphan} = await olderOrphan({repo: repo.root, plan: 'Plan.md', key: 'plan', log, name: 'A', env: {}, agentId: 'thread-unknown', seconds: 30})
    const second = await runCli(['run', 'Plan.md'], {cwd: repo.root, env: gitEnv()})
    expect(second.exitCode, second.all).toBe(3)
    expect(second.all).toContain(`pid ${orphan.pid}`)
    expect(second.all).toContain(`kill -TERM -- -${orphan.pid}`)
    expect(isAlive(orphan.pid!)).toBe(true)
    expect((await readAgentLog(log)).starts.get('A#1')).toBe(1)
    // Ended as the message says, the next run goes on.
    process.kill(-orphan.pid!, 'SIGTERM')
    await orphan
    const third = await runCli(['run', 'Plan.md'], {cwd: repo.root, env: gitEnv()})
    expect(third.exitCode, third.all).toBe(0)
    expect(overlaps(log), text(log)).toEqual([])
    expect((await readTable(plan)).rows.A!.status).toBe('completed')
    await repo.cleanup()
  }, 60_000)
})
