import {existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import type {RunEvent} from '../../../src/events.js'
import type {AgentHistory} from '../../../src/history/history-types.js'
import {isolateGitConfig, tempDir, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan} from '../../helpers/run-cli.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'

/**
 * A plan's logs (each attempt's, the run log) are a function of the plan alone, beside it in
 * `.mdplan/logs/<plan>/`, whatever folder a run starts in (README, "What mdplan writes"). Under the folder
 * a run started in, a rerun from `sub/` or with `--cwd` saw no earlier attempt: a re-queued agent ran
 * again as attempt 1, and `history` and `report` missed the run started elsewhere. Real runs in a real
 * repository; attempts counted from the agent's side.
 */
let repo: TempRepo | undefined
beforeAll(isolateGitConfig)
afterEach(async () => {
  await repo?.cleanup()
  repo = undefined
})

interface Setup {
  root: string
  plan: string
  /** The agents' own log (outside the repository, so `git status` shows only what mdplan leaves). */
  log: string
  /** Where the plan's logs are now: beside it. */
  logs: string
}

/**
 * `sub/plan.md`: A (takes a second, so its duration counts when it should not) and F, which fails its
 * first attempt; `max_attempts: 1`, so the first run ends with F failed.
 */
async function setup(): Promise<Setup> {
  repo = await tempRepo()
  const log = join(await tempDir(), 'agents.log')
  const plan = shellPlan(
    {
      A: {script: logged(log, 'sleep 1.1')},
      F: {script: logged(log, 'echo "F ran as attempt $MDPLAN_ATTEMPT"\n[ "$MDPLAN_ATTEMPT" != 1 ] || exit 1')}
    },
    {frontMatter: 'max_attempts: 1'}
  )
  await repo.commit('plan', {'sub/plan.md': plan, 'work/.keep': ''})
  return {root: repo.root, plan: join(repo.root, 'sub', 'plan.md'), log, logs: join(repo.root, 'sub', '.mdplan', 'logs', 'plan')}
}

async function run(args: string[], cwd: string, exitCode: number): Promise<RunEvent[]> {
  const result = await runCli([...args, '--json'], {cwd})
  expect(result.exitCode, result.all).toBe(exitCode)
  return result.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as RunEvent)
}

/**
 * A person re-queues F with a whole budget: its row as the plan first had it, Notes cleared. A second
 * later at least: `Started:` is written to the second, and A's end must fall before the rerun's.
 */
async function requeueF(plan: string): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1100))
  const text = readFileSync(plan, 'utf8')
  const requeued = text.replace(/^\| F \| failed .*$/m, '| F | pending | — | — | |')
  expect(requeued).not.toBe(text)
  writeFileSync(plan, requeued)
}

const launchTime = (events: RunEvent[], agent: string): string | undefined => events.find((e) => e.type === 'launched' && e.agent === agent)?.time

/** F's logs: file name → the lines F wrote there. */
function logsOfF(folder: string): Record<string, string[]> {
  const logs: Record<string, string[]> = {}
  for (const name of readdirSync(folder).filter((n) => /^F\.\d+\.log$/.test(n)).sort()) {
    logs[name] = readFileSync(join(folder, name), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('F ran'))
  }
  return logs
}

/**
 * From `cwd`: `history` records A with its start in the first run and F with its start in the second;
 * `report` sums only F (the second run set `Started:`, and A's work ended before it).
 */
async function expectBothRuns(s: Setup, cwd: string, first: RunEvent[], second: RunEvent[]): Promise<void> {
  const planArg = relative(cwd, s.plan)
  const out = join(await tempDir(), 'history.json')
  const history = await runCli(['history', planArg, '--out', out], {cwd})
  expect(history.exitCode, history.all).toBe(0)
  const entries = (JSON.parse(readFileSync(out, 'utf8')) as AgentHistory).entries
  const started = (id: string) => entries.find((entry) => entry.task_description.startsWith(`${id}:`))?.timestamp
  expect(started('A'), cwd).toBe(launchTime(first, 'A'))
  expect(started('F'), cwd).toBe(launchTime(second, 'F'))

  const report = await runCli(['report', planArg, '--json'], {cwd})
  expect(report.exitCode, report.all).toBe(0)
  const card = JSON.parse(report.stdout) as {sumOfPartsMs: number; agents: Array<{id: string; durationMs?: number}>}
  expect(card.agents.find((a) => a.id === 'A')?.durationMs, cwd).toBeGreaterThanOrEqual(1000)
  expect(card.sumOfPartsMs, cwd).toBe(card.agents.find((a) => a.id === 'F')?.durationMs)
}

for (const [name, rerun] of [
  ['from sub/', (s: Setup) => ({args: ['run', 'plan.md'], cwd: join(s.root, 'sub')})],
  ['with --cwd', (s: Setup) => ({args: ['run', 'sub/plan.md', '--cwd', 'work'], cwd: s.root})]
] as const) {
  describe(`a plan in sub/, run from the repository root, then re-run ${name}`, () => {
    it('the re-queued agent is the next attempt, in its own log beside the plan; history and report see both runs', async () => {
      const s = await setup()
      const first = await run(['run', 'sub/plan.md'], s.root, 1)
      await requeueF(s.plan)
      const again = rerun(s)
      const second = await run(again.args, again.cwd, 0)

      expect((await readAgentLog(s.log)).starts).toEqual(new Map([['A#1', 1], ['F#1', 1], ['F#2', 1]]))
      expect(launchTime(second, 'F')).toBeDefined()
      expect(second.find((e) => e.type === 'launched' && e.agent === 'F')).toMatchObject({attempt: 2, log: join(s.logs, 'F.2.log')})
      expect(logsOfF(s.logs)).toEqual({'F.1.log': ['F ran as attempt 1'], 'F.2.log': ['F ran as attempt 2']})
      expect(existsSync(join(s.logs, 'A.1.log'))).toBe(true)
      expect(readFileSync(join(s.logs, 'run.ndjson'), 'utf8').match(/"type":"run-started"/g)).toHaveLength(2)
      // Nothing of them under the folders the runs started in.
      for (const folder of [s.root, join(s.root, 'work')]) expect(existsSync(join(folder, '.mdplan', 'logs')), folder).toBe(false)
      expect((await readTable(s.plan)).rows.F!.status).toBe('completed')

      await expectBothRuns(s, s.root, first, second)
      await expectBothRuns(s, join(s.root, 'sub'), first, second)
      // The plan's `.mdplan/` ignores itself: git sees only the plan's new table.
      expect((await repo!.git('status', '--porcelain', '--untracked-files=all')).trim()).toBe('M sub/plan.md')
    }, 60_000)
  })
}

describe('logs an older version kept under the folder its run started in', () => {
  for (const [name, flags, legacy, rerun, readers] of [
    // Run from the repository root: `.mdplan/logs/sub--plan/` there; re-run from sub/. Read from any folder
    // on the plan's way up, the root's among them.
    ['the repository root', [], (s: Setup) => join(s.root, '.mdplan', 'logs', 'sub--plan'), (s: Setup) => ({args: ['run', 'plan.md'], cwd: join(s.root, 'sub')}), ['', 'sub']],
    // Run with `--cwd work`: `work/.mdplan/logs/plan/` (the plan is outside it: its file's own key); re-run alike.
    // Read where the run (or `history`, `report`) starts in work/.
    ['--cwd work', ['--cwd', 'work'], (s: Setup) => join(s.root, 'work', '.mdplan', 'logs', 'plan'), (s: Setup) => ({args: ['run', 'sub/plan.md', '--cwd', 'work'], cwd: s.root}), ['work']]
  ] as const) {
    it(`under ${name}: still read, never moved; the re-queued agent goes on after their attempts`, async () => {
      const s = await setup()
      const first = await run(['run', 'sub/plan.md', ...flags], s.root, 1)
      // What an older version left: the same files, where it kept them (an older build under test wrote them there).
      if (!existsSync(legacy(s))) {
        mkdirSync(join(legacy(s), '..'), {recursive: true})
        renameSync(s.logs, legacy(s))
      }
      const before = readFileSync(join(legacy(s), 'F.1.log'), 'utf8')
      await requeueF(s.plan)
      const again = rerun(s)
      const second = await run(again.args, again.cwd, 0)

      expect((await readAgentLog(s.log)).starts).toEqual(new Map([['A#1', 1], ['F#1', 1], ['F#2', 1]]))
      expect(logsOfF(s.logs)).toEqual({'F.2.log': ['F ran as attempt 2']})
      expect(readFileSync(join(legacy(s), 'F.1.log'), 'utf8')).toBe(before)
      expect(readdirSync(legacy(s)).sort()).toEqual(['A.1.log', 'F.1.log', 'run.ndjson'])
      for (const folder of readers) await expectBothRuns(s, join(s.root, folder), first, second)
    }, 60_000)
  }
})
