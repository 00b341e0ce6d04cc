import {mkdtemp, readFile, mkdir} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, root, runCli, shellPlan} from '../../helpers/run-cli.js'
import {duplicates, logged, randomDag, readAgentLog, readEvents} from '../../helpers/agent-log.js'
import {forEachShapes, stubTools} from '../../helpers/real-plans.js'

// Every run here is in a real repository and counts launches from the agents' side (see helpers/agent-log.ts).
beforeAll(isolateGitConfig)

const gitEnv = () => ({GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'})

async function logFile(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), 'mdplan-e2e-log-')), 'agents.log')
}

/** Exactly one start per attempt the events launched, no more, none missing; both peaks within `cap`. */
async function expectExactlyOnce(log: string, stdout: string, cap: number, expected: string[]) {
  const agents = await readAgentLog(log)
  const events = readEvents(stdout)
  expect(duplicates(agents), agents.lines.join('\n')).toEqual([])
  expect([...agents.starts.keys()].sort()).toEqual([...expected].sort())
  expect([...events.launched.keys()].sort()).toEqual([...expected].sort())
  expect([...events.launched.values()].every((count) => count === 1), JSON.stringify([...events.launched])).toBe(true)
  expect(agents.unfinished).toEqual([])
  expect(agents.peak).toBeLessThanOrEqual(cap)
  expect(events.peak).toBeLessThanOrEqual(cap)
}

async function expectValid(plan: string, cwd: string) {
  const validate = await runCli(['validate', plan], {cwd})
  expect(validate.exitCode, validate.all).toBe(0)
}

/** The demo plan with a start line before each script and an end line before its RESULT. */
function loggedDemo(text: string, log: string): string {
  const mark = (what: string) => `    printf '${what} %s %s %s\\n' "$MDPLAN_AGENT" "$MDPLAN_ATTEMPT" "$(date +%s%N)" >> '${log}'`
  return text
    .replace(/^- \*\*prompt\*\*: \|\n/gm, (line) => `${line}${mark('start')}\n`)
    .replace(/^ {4}echo "RESULT: SUCCESS"\n/gm, (line) => `${mark('end')}\n${line}`)
}

describe('end to end in a git repository, launches counted by the agents', () => {
  it('runs the demo plan: 6 launches, within concurrency 3, run after run', async () => {
    const demo = await readFile(join(root, 'plans', 'demo.md'), 'utf8')
    for (let round = 0; round < 3; round++) {
      const log = await logFile()
      const repo = await tempRepo()
      await repo.commit('plan', {'plans/demo.md': loggedDemo(demo, log)})
      const plan = join(repo.root, 'plans', 'demo.md')
      const result = await runCli(['run', plan, '--json'], {cwd: repo.root, env: gitEnv()})
      expect(result.exitCode, result.all).toBe(0)
      await expectExactlyOnce(log, result.stdout, 3, ['A#1', 'B#1', 'C#1', 'D#1', 'E#1', 'F#1'])
      const {rows} = await readTable(plan)
      expect(Object.values(rows).map((row) => row.status)).toEqual(Array(6).fill('completed'))
      await expectValid(plan, repo.root)
      // Run again: nothing launches.
      const again = await runCli(['run', plan, '--json'], {cwd: repo.root, env: gitEnv()})
      expect(again.exitCode, again.all).toBe(0)
      expect((await readAgentLog(log)).starts.size).toBe(6)
      await repo.cleanup()
    }
  }, 60_000)

  const variants: {name: string; front?: string; flags?: string[]; cap: number}[] = [
    {name: 'plain', cap: 5},
    {name: 'commit: true', front: 'commit: true', cap: 6},
    {name: 'isolation: worktree', front: 'isolation: worktree', cap: 6},
    {name: '--strict-scope', flags: ['--strict-scope'], cap: 6}
  ]
  for (const [index, variant] of variants.entries()) {
    it(`runs a 40-agent random DAG once each (${variant.name})`, async () => {
      const log = await logFile()
      const dag = randomDag(40, 100 + index)
      const agents = Object.fromEntries(
        dag.map((agent) => [
          agent.id,
          {deps: agent.deps, creates: [`out/${agent.id}.txt`], script: logged(log, `sleep ${(agent.ms / 1000).toFixed(3)}\nmkdir -p out\necho ${agent.id} > out/${agent.id}.txt`)}
        ])
      )
      const repo = await tempRepo()
      await repo.commit('plan', {'plan.md': shellPlan(agents, {frontMatter: [`concurrency: ${variant.cap}`, variant.front].filter(Boolean).join('\n')})})
      const plan = join(repo.root, 'plan.md')
      const result = await runCli(['run', plan, '--json', '--max-attempts', '1', ...(variant.flags ?? [])], {cwd: repo.root, env: gitEnv()})
      expect(result.exitCode, result.all).toBe(0)
      await expectExactlyOnce(log, result.stdout, variant.cap, dag.map((agent) => `${agent.id}#1`))
      const {rows} = await readTable(plan)
      expect(Object.entries(rows).filter(([, row]) => row.status !== 'completed')).toEqual([])
      for (const agent of dag) expect(await repo.read(`out/${agent.id}.txt`)).toBe(`${agent.id}\n`)
      if (variant.front === 'commit: true') {
        const subjects = (await repo.git('log', '--format=%s')).split('\n')
        for (const agent of dag) expect(subjects.filter((subject) => subject.endsWith(`· ${agent.id}: ${agent.id.toLowerCase()}-step`))).toHaveLength(1)
      }
      if (variant.front === 'isolation: worktree') {
        expect((await repo.git('worktree', 'list')).trim().split('\n')).toHaveLength(1)
      }
      await expectValid(plan, repo.root)
      await repo.cleanup()
    // Worktrees cost git work per agent: 33 s alone on 2 cores, 60 s beside two other test files.
    }, 150_000)
  }
})

forEachShapes((shapes) => {
  describe('end to end, a plan in a real plan\'s shape', () => {
    it('runs a 6-agent plan not started once each with a command-template runner', async () => {
      const log = await logFile()
      // Its verification blocks call pnpm, cargo or uv.
      const bin = stubTools()
      const repo = await tempRepo()
      await mkdir(join(repo.root, 'docs', 'plans'), {recursive: true})
      const text = await readFile(join(shapes.dir, shapes.pending), 'utf8')
      await repo.commit('plan', {'docs/plans/plan.md': text})
      const plan = join(repo.root, 'docs', 'plans', 'plan.md')
      const runner = `sh -c "${logged(log, 'sleep 0.1').replaceAll('"', '\\"').replaceAll('\n', '; ')}; echo RESULT: SUCCESS"`
      const result = await runCli(['run', plan, '--json', '--runner', runner, '--concurrency', '3'], {
        cwd: repo.root,
        env: {...gitEnv(), PATH: `${bin}:${process.env.PATH}`}
      })
      expect(result.exitCode, result.all).toBe(0)
      await expectExactlyOnce(log, result.stdout, 3, ['A#1', 'B#1', 'C#1', 'D#1', 'E#1', 'F#1'])
      const {rows} = await readTable(plan)
      expect(Object.values(rows).map((row) => row.status)).toEqual(Array(6).fill('completed'))
      await expectValid(plan, repo.root)
      // The person's bytes outside the state table are kept.
      expect((await readFile(plan, 'utf8')).startsWith(text.split('\n## Execution State')[0]!)).toBe(true)
      await repo.cleanup()
    }, 60_000)
  })
})
