import {readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {liveRun} from '../../helpers/live-run.js'
import {readTable, runCli, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'
import {logged, readAgentLog, waitForFirstStart} from '../../helpers/agent-log.js'
import {liveEvents, saveByRename, withCell} from '../../helpers/live-events.js'

/**
 * `pending` re-queues an agent with one more attempt (README, "What mdplan writes"): the re-queued run
 * is the next attempt, from the agent's side (MDPLAN_ATTEMPT) and in its own log, whether the person
 * kept the row's Notes or cleared them, in the same run or in the next one. Real run, real git.
 */
const session = liveRun()
beforeAll(isolateGitConfig)

async function setup(tail = '', frontMatter?: string): Promise<{root: string; plan: string; log: string}> {
  session.repo = await tempRepo()
  const root = session.repo.root
  const log = join(root, 'agents.log')
  const plan = shellPlan(
    {
      A: {script: logged(log, 'while [ ! -f go ]; do sleep 0.05; done')},
      F: {script: logged(log, `echo "F ran as attempt $MDPLAN_ATTEMPT"${tail}`)}
    },
    frontMatter ? {frontMatter} : {}
  )
  await session.repo.commit('plan', {'plan.md': plan})
  return {root, plan: join(root, 'plan.md'), log}
}

/** F's logs under .mdplan/logs: file name → its lines that F wrote. */
function logsOfF(root: string): Record<string, string[]> {
  const dir = join(root, '.mdplan', 'logs', 'plan')
  const logs: Record<string, string[]> = {}
  for (const name of readdirSync(dir).filter((n) => n.startsWith('F.')).sort()) {
    logs[name] = readFileSync(join(dir, name), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('F ran'))
  }
  return logs
}

describe('a completed agent set back to pending', () => {
  it('runs as the next attempt, in its own log, with its Notes kept or cleared, while another agent runs', async () => {
    const {root, plan, log} = await setup()
    const run = startCli(['run', 'plan.md', '--json'], {cwd: root})
    session.live = run
    const events = liveEvents(run)
    await waitForFirstStart(log)
    await waitForTable(plan, (rows) => rows.F?.status === 'completed' && rows.A?.status === 'in_progress')
    // Status alone (its `base:` note kept), then the whole row as the plan first had it (Notes cleared).
    for (const [attempt, requeue] of [
      [2, (text: string) => withCell(text, 'F', 1, () => 'pending')],
      [3, (text: string) => text.replace(/^\| F \| completed .*$/m, '| F | pending | — | — | |')]
    ] as const) {
      const launched = events.until((e) => e.type === 'launched' && e.agent === 'F', `F's launch as attempt ${attempt}`)
      saveByRename(plan, requeue(readFileSync(plan, 'utf8')))
      expect((await launched).attempt).toBe(attempt)
      await waitForTable(plan, (rows) => rows.F?.status === 'completed')
    }
    writeFileSync(join(root, 'go'), '')
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    expect((await readAgentLog(log)).starts).toEqual(new Map([['A#1', 1], ['F#1', 1], ['F#2', 1], ['F#3', 1]]))
    expect(logsOfF(root)).toEqual({'F.1.log': ['F ran as attempt 1'], 'F.2.log': ['F ran as attempt 2'], 'F.3.log': ['F ran as attempt 3']})
    expect((await readTable(plan)).rows.F!.status).toBe('completed')
    // The scorecard (the run's and `report`'s) counts the attempts that ran, though no failure is noted.
    const finished = result.stdout.split('\n').filter((line) => line.includes('"type":"run-finished"')).map((line) => JSON.parse(line) as {scorecard: {agents: Array<{id: string; attempts: number}>}})
    expect(finished[0]!.scorecard.agents.find((agent) => agent.id === 'F')!.attempts).toBe(3)
    const report = await runCli(['report', 'plan.md'], {cwd: root})
    expect(report.stdout).toMatch(/^F\s+f-step\s+completed\s+3\s/m)
  }, 30_000)

  it('between runs, with its row cleared: the next run starts it as the attempt after the logs on disk, with its tries', async () => {
    // F's attempt 2 fails: with `max_attempts: 2` the re-queued F still gets its retry (the limit counts failures).
    const {root, plan, log} = await setup('; [ "$MDPLAN_ATTEMPT" != 2 ] || exit 1', 'max_attempts: 2')
    writeFileSync(join(root, 'go'), '')
    const first = await runCli(['run', 'plan.md'], {cwd: root})
    expect(first.exitCode, first.all).toBe(0)
    // The row as the plan first had it: nothing in the table says F ran.
    writeFileSync(plan, readFileSync(plan, 'utf8').replace(/^\| F \| completed .*$/m, '| F | pending | — | — | |'))
    const second = await runCli(['run', 'plan.md'], {cwd: root})
    expect(second.exitCode, second.all).toBe(0)
    expect((await readAgentLog(log)).starts).toEqual(new Map([['A#1', 1], ['F#1', 1], ['F#2', 1], ['F#3', 1]]))
    expect(logsOfF(root)).toEqual({'F.1.log': ['F ran as attempt 1'], 'F.2.log': ['F ran as attempt 2'], 'F.3.log': ['F ran as attempt 3']})
    const row = (await readTable(plan)).rows.F!
    expect(row.status).toBe('completed')
    expect(row.notes).toMatch(/(^|; )attempt 2: /)
  }, 30_000)
})
