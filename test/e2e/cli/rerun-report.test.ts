import {mkdir, mkdtemp, readFile, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {parseDuration} from '../../../src/util/parse-duration.js'
import {agentTimes, timedAgents} from '../../../src/report/agent-times.js'
import type {RunEvent} from '../../../src/events.js'
import {readTable, runCli, shellPlan} from '../../helpers/run-cli.js'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {forEachShapes, stubTools} from '../../helpers/real-plans.js'

// Plans finished by a hand-driven executor (the real ones, and ours in their shapes): one without a Duration column, one with.

let fakeBin = ''
beforeAll(async () => {
  await isolateGitConfig()
  // Their verification blocks call pnpm, cargo or uv.
  fakeBin = stubTools()
})

const env = () => ({GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1', PATH: `${fakeBin}:${process.env.PATH}`})

/** The row of `id` set back to `pending` as a person would: the cell keeps its width. */
function setBack(text: string, id: string): string {
  return text.replace(new RegExp(`^(\\| ${id} +\\| )completed( *)\\|`, 'm'), (_, head: string, pad: string) => `${head}pending  ${pad}|`)
}

/** A finished plan in a fresh repository, with the rows `again` set back to `pending` as a person would (the cell keeps its width). */
async function rerunnable(file: string, again: string[]): Promise<{repo: TempRepo; plan: string; log: string; runner: string}> {
  let text = await readFile(file, 'utf8')
  for (const id of again) text = setBack(text, id)
  const repo = await tempRepo()
  await mkdir(join(repo.root, 'docs', 'plans'), {recursive: true})
  await repo.commit('plan', {'docs/plans/plan.md': text})
  const log = join(repo.root, '..', `${repo.root.split('/').at(-1)}-agents.log`)
  const runner = `sh -c "${logged(log, 'sleep 1').replaceAll('"', '\\"').replaceAll('\n', '; ')}; echo RESULT: SUCCESS"`
  return {repo, plan: join(repo.root, 'docs', 'plans', 'plan.md'), log, runner}
}

async function report(repo: TempRepo): Promise<{wallClockMs?: number; sumOfPartsMs: number; speedup?: number; agents: Array<{id: string; durationMs?: number}>; build?: string; tests?: string}> {
  const result = await runCli(['report', 'docs/plans/plan.md', '--json'], {cwd: repo.root})
  expect(result.exitCode, result.all).toBe(0)
  return JSON.parse(result.stdout)
}

forEachShapes((shapes) => {
  const noDurationColumn = join(shapes.dir, shapes.noDuration)
  const withDurations = join(shapes.dir, shapes.finished)

  describe('re-running a finished plan', () => {
    it('times the new run from its first launch, and keeps durations in the notes of a table with no Duration column', async () => {
      const testStart = Date.now()
      const {repo, plan, log, runner} = await rerunnable(noDurationColumn, ['F'])
      const before = await readTable(plan)
      expect(before.meta.started).toBe(shapes.facts.noDurationStarted)

      const run = await runCli(['run', 'docs/plans/plan.md', '--runner', runner], {cwd: repo.root, env: env()})
      expect(run.exitCode, run.all).toBe(0)
      expect([...(await readAgentLog(log)).starts]).toEqual([['F#1', 1]])

      const after = await readTable(plan)
      // A new timing, in the file's own format (local time, no zone).
      expect(after.meta.started).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
      expect(Date.parse(after.meta.started!)).toBeGreaterThanOrEqual(Math.floor(testStart / 1000) * 1000)
      expect(after.rows.F!.status).toBe('completed')
      const took = /(?:^|; )took (\d[^;]*)$/.exec(after.rows.F!.notes)
      expect(took, after.rows.F!.notes).not.toBeNull()
      const fMs = parseDuration(took![1]!)!
      expect(fMs).toBeGreaterThanOrEqual(1000)
      // The other rows keep their values.
      expect(after.rows.A).toEqual(before.rows.A)

      const card = await report(repo)
      expect(card.agents.find((a) => a.id === 'F')?.durationMs).toBe(fMs)
      expect(card.sumOfPartsMs).toBe(fMs)
      expect(card.wallClockMs).toBeLessThan(10 * 60_000)
      expect(card.wallClockMs).toBeGreaterThanOrEqual(fMs - 1000)
      expect(card.speedup).toBeGreaterThan(0)
      // `Tests: 450/450 pass` is what the plan recorded, shown as such: not an integration result.
      expect(card.tests).toBe(shapes.facts.noDurationTests)
      expect((await runCli(['report', 'docs/plans/plan.md'], {cwd: repo.root})).stdout).toMatch(new RegExp(`^Tests +${shapes.facts.noDurationTests}$`, 'm'))

      // Once more: one `took` item, the current one.
      await writeFile(plan, setBack(await readFile(plan, 'utf8'), 'F'))
      const again = await runCli(['run', 'docs/plans/plan.md', '--runner', runner], {cwd: repo.root, env: env()})
      expect(again.exitCode, again.all).toBe(0)
      // Set back to pending, F runs as its next attempt (its own log), not as attempt 1 again.
      expect([...(await readAgentLog(log)).starts]).toEqual([
        ['F#1', 1],
        ['F#2', 1]
      ])
      const notes = (await readTable(plan)).rows.F!.notes
      expect(notes.match(/took /g), notes).toHaveLength(1)
      await repo.cleanup()
    }, 60_000)

    it('sums only this run’s parts where the table keeps every earlier duration', async () => {
      const {repo, plan, log, runner} = await rerunnable(withDurations, ['D'])
      const run = await runCli(['run', 'docs/plans/plan.md', '--runner', runner], {cwd: repo.root, env: env()})
      expect(run.exitCode, run.all).toBe(0)
      expect([...(await readAgentLog(log)).starts]).toEqual([['D#1', 1]])
      const dMs = parseDuration((await readTable(plan)).rows.D!.duration)!
      expect(dMs).toBeGreaterThanOrEqual(1000)
      // A, B and C ran on the day the plan records: shown, not summed against today's wall-clock.
      const card = await report(repo)
      expect(card.agents.find((a) => a.id === 'A')?.durationMs).toBe(shapes.facts.finishedA.durationMs)
      expect(card.sumOfPartsMs).toBe(dMs)
      // The wall-clock is this run's, from the table's own stamps: whole seconds (this plan's format), cut, not
      // rounded, while D's duration is rounded, so D alone reads up to 2 (1.6 s of D, `2s`, started at 10:00:00.1
      // and recorded at 10:00:01.7: over 1 s of wall-clock). A bound of 1.5 fails whenever a loaded machine makes
      // D's `sleep 1` last 1.5 s or more and the seconds fall so. With A, B and C summed it would be in the hundreds.
      const {meta} = await readTable(plan)
      const wallClockMs = Date.parse(meta.last_updated!) - Date.parse(meta.started!)
      expect(card.wallClockMs).toBe(wallClockMs)
      expect(card.speedup).toBe(Math.round((dMs / wallClockMs) * 100) / 100)
      expect(card.speedup).toBeLessThanOrEqual(2)
      // The run's own scorecard says the same.
      expect(run.stdout).toMatch(new RegExp(`^Sum of parts +${(dMs / 1000).toFixed(0)}s$`, 'm'))
      await repo.cleanup()
    }, 60_000)
  })

  describe('the scorecard describes one run', () => {
    it('says that nothing ran when nothing launched, without the earlier run’s times', async () => {
      const {repo, log, runner} = await rerunnable(withDurations, [])
      const run = await runCli(['run', 'docs/plans/plan.md', '--runner', runner], {cwd: repo.root, env: env()})
      expect(run.exitCode, run.all).toBe(0)
      expect((await readAgentLog(log)).starts.size).toBe(0)
      expect(run.stdout).toMatch(/^This run +nothing launched/m)
      expect(run.stdout).not.toMatch(/Peak concurrency|Wall-clock|Speedup/)
      const json = await runCli(['run', 'docs/plans/plan.md', '--runner', runner, '--json'], {cwd: repo.root, env: env()})
      const finished = json.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line)).find((event) => event.type === 'run-finished')
      expect(finished.scorecard.nothingRan).toBe(true)
      expect(finished.scorecard).not.toHaveProperty('peakConcurrency')
      expect(finished.scorecard).not.toHaveProperty('wallClockMs')
      expect(await repo.git('status', '--porcelain')).toBe('')
      await repo.cleanup()
    }, 60_000)
  })
})

describe('the scorecard of a run', () => {
  it('leaves out a build the plan does not have, and shows an integration result as passed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-card-'))
    await writeFile(join(dir, 'plan.md'), shellPlan({A: {script: 'echo "RESULT: SUCCESS"'}}, {integration: 'true'}))
    const run = await runCli(['run', 'plan.md'], {cwd: dir})
    expect(run.exitCode, run.all).toBe(0)
    expect(run.stdout).not.toMatch(/^Build/m)
    expect(run.stdout).toMatch(/^Integration +passed$/m)
    expect(run.stdout).toMatch(/^Peak concurrency +1$/m)
    const built = await mkdtemp(join(tmpdir(), 'mdplan-card-'))
    await writeFile(join(built, 'plan.md'), shellPlan({A: {script: 'echo "RESULT: SUCCESS"'}}, {frontMatter: 'build: "true"'}))
    const withBuild = await runCli(['run', 'plan.md'], {cwd: built})
    expect(withBuild.stdout).toMatch(/^Build +passed$/m)
    expect(withBuild.stdout).not.toMatch(/^Integration/m)
  })
})

describe('agent times from the run log', () => {
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 10, 0, s)).toISOString()
  const runStarted = (s: number): RunEvent => ({type: 'run-started', time: at(s), plan: '/p.md', agents: 2, concurrency: 2, resumed: false})
  const launched = (s: number, agent: string, attempt = 1): RunEvent => ({type: 'launched', time: at(s), agent, attempt, resumed: false, log: 'x'})
  const completed = (s: number, agent: string): RunEvent => ({type: 'completed', time: at(s), agent, attempt: 1, durationMs: 1000})
  const failed = (s: number, agent: string, willRetry: boolean): RunEvent => ({type: 'failed', time: at(s), agent, attempt: 1, durationMs: 1000, reason: 'x', willRetry})
  const log: RunEvent[] = [
    runStarted(0), launched(1, 'A'), failed(3, 'A', true), launched(4, 'A', 2), completed(9, 'A'), launched(9, 'B'), completed(12, 'B'),
    // A person set B back to pending: a second run, a new piece of work for B only.
    runStarted(30), launched(31, 'B'), completed(35, 'B')
  ]

  it('spans a retry, and starts anew after the agent finished', () => {
    expect(agentTimes(log)).toEqual(new Map([
      ['A', {start: at(1), end: at(9)}],
      ['B', {start: at(31), end: at(35)}]
    ]))
  })

  it('knows the agents of the timing the table records, when the log holds the run that set it', () => {
    expect(timedAgents(log, at(31))).toEqual(new Set(['B']))
    // Started: written to the second, before the first launch's event.
    expect(timedAgents(log, at(30))).toEqual(new Set(['B']))
    expect(timedAgents(log, at(1))).toEqual(new Set(['A', 'B']))
    // A timing no run in this log started (another machine's, a hand-driven run's): every duration counts.
    expect(timedAgents(log, at(20))).toBeUndefined()
    expect(timedAgents(log, '—')).toBeUndefined()
  })
})
