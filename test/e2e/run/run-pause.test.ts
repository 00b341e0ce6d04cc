import {existsSync} from 'node:fs'
import {mkdtemp} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {createExecState} from '../../../src/executor/create-exec-state.js'
import {storeTable} from '../../../src/executor/exec-row.js'
import {renderNotes} from '../../../src/executor/row-notes.js'
import type {ExecConfig} from '../../../src/executor/exec-config.js'
import type {ExecEvent} from '../../../src/executor/exec-event.js'
import {step} from '../../../src/executor/step.js'
import {waitEnds} from '../../../src/executor/account-waits.js'
import {emptyRow} from '../../../src/store/table-state.js'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {readTable, root, runCli, startCli} from '../../helpers/run-cli.js'
import {simAgent} from '../../helpers/exec-sim.js'
import {readArgvLog} from '../../helpers/runner-support.js'

/**
 * Pauses (a rate or usage limit, network or server trouble): a signal during
 * one ends the run at once, and one agent's pauses have a total limit after
 * which its attempt fails with the last cause. Real runs use the fake claude,
 * which reports claude's real 429; launches are counted from its argv log.
 */
let repo: TempRepo | undefined
beforeAll(isolateGitConfig)
afterEach(async () => {
  await repo?.cleanup()
  repo = undefined
})

const plan = (front = ''): string =>
  ['---', 'runner: claude', front, '---', '', '# Parallel Plan: pauses', '', '## Agents', '', '### A: work', '- **depends_on**: []', '- **prompt**: |', '    Do the work.', ''].join('\n')

async function fakeClaude(scenario: string): Promise<{env: Record<string, string>; launches: () => number}> {
  const state = await mkdtemp(join(tmpdir(), 'mdplan-fake-state-'))
  const argvLog = join(state, 'argv.jsonl')
  const env = {MDPLAN_CLAUDE_BIN: join(root, 'fixtures', 'agents', 'claude'), FAKE_SCENARIO: scenario, FAKE_STATE_DIR: state, FAKE_ARGV_LOG: argvLog}
  // The preflight's `claude auth status` and `--help` are not launches: only `-p` runs are.
  return {env, launches: () => readArgvLog(argvLog).filter((line) => line.argv.includes('-p')).length}
}

describe('a signal during a pause', () => {
  it('SIGTERM while paused for a rate limit ends the process at once (exit 130) and the row resumes on the next run', async () => {
    repo = await tempRepo({'plan.md': plan()})
    const claude = await fakeClaude('rate-limit')
    const run = startCli(['run', 'plan.md', '--json'], {cwd: repo.root, env: claude.env})
    // The first pause is a minute long: wait for the run to say it paused, then stop it.
    await new Promise<void>((resolve, reject) => {
      let seen = ''
      run.stdout!.on('data', (chunk: Buffer) => {
        seen += chunk.toString()
        if (seen.includes('"type":"paused"')) resolve()
      })
      void run.then((result) => reject(new Error(`the run ended before it paused: ${result.all}`)))
    })
    run.kill('SIGTERM')
    // Generous next to the exit itself, far below the minute the pause timer would have held the process.
    const exited = await Promise.race([run, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 20_000).unref())])
    expect(exited, 'the process still lived 20 s after SIGTERM (the pause timer held it)').not.toBe('hung')
    if (exited === 'hung') return
    expect(exited.exitCode, exited.all).toBe(130)
    expect(claude.launches()).toBe(1)
    const {rows} = await readTable(join(repo.root, 'plan.md'))
    expect(rows.A!.status).toBe('pending')
    expect(rows.A!.notes).toMatch(/paused: rate or usage limit/)
    expect(existsSync(join(repo.root, 'plan.md.lock'))).toBe(false)

    const ok = await fakeClaude('ok')
    const again = await runCli(['run', 'plan.md'], {cwd: repo.root, env: ok.env})
    expect(again.exitCode, again.all).toBe(0)
    expect(ok.launches()).toBe(1)
    expect((await readTable(join(repo.root, 'plan.md'))).rows.A!.status).toBe('completed')
  }, 60_000)
})

describe("the total limit on one agent's pauses", () => {
  for (const [how, args, front] of [
    ['--max-pause 30s', ['--max-pause', '30s'], ''],
    ['front matter max_pause: 30s', [], 'max_pause: 30s']
  ] as const) {
    it(`${how}: a rate limit whose pause would go beyond it fails the attempt with the cause in its note`, async () => {
      repo = await tempRepo({'plan.md': plan(front)})
      const claude = await fakeClaude('rate-limit')
      const result = await runCli(['run', 'plan.md', '--max-attempts', '1', ...args], {cwd: repo.root, env: claude.env})
      expect(result.exitCode, result.all).toBe(1)
      expect(claude.launches()).toBe(1)
      const {rows} = await readTable(join(repo.root, 'plan.md'))
      expect(rows.A!.status).toBe('failed')
      expect(rows.A!.notes).toMatch(/attempt 1: paused 0ms in total, the limit is 30s \(--max-pause\), last cause: rate or usage limit \(.*429/)
      expect(rows.A!.notes).not.toMatch(/paused: /)
    })
  }

  it('counts every pause of the agent: the pause that would cross the limit fails the attempt, and only that one', () => {
    const agents = [simAgent('A', [])]
    const config: ExecConfig = {
      concurrency: 1,
      maxAttempts: 3,
      failFast: false,
      canResume: () => false,
      newAgentId: () => undefined,
      childPlan: () => false,
      git: false,
      logFile: () => '/dev/null',
      rateLimitPauseMs: 100,
      maxPauseMs: 350
    }
    let state = createExecState({agents, priority: new Map([['A', 1]]), table: {rows: new Map([['A', emptyRow()]]), meta: {}}, rateLimitPauseMs: 100})
    let now = 0
    const writes: number[] = []
    type Input = ExecEvent extends infer E ? (E extends unknown ? Omit<E, 'now'> : never) : never
    const send = (event: Input): void => {
      const result = step(state, {...event, now} as ExecEvent, config)
      state = result.state
      for (const effect of result.effects) if (effect.type === 'write') writes.push(effect.seq)
    }
    // Every write reaches the disk (the launch is recorded before its spawn).
    const writeDone = (): void => {
      while (writes.length > 0) send({type: 'write-done', seq: writes.shift()!, result: {state: storeTable(state.table), humanEdits: [], conflicts: [], bytes: 1, ms: 1}} as never)
    }
    send({type: 'start'})
    const notes: string[] = []
    for (let attempt = 0; attempt < 4; attempt++) {
      writeDone()
      send({type: 'prepared', agent: 'A', attempt: state.attempts.get('A')!.attempt, cwd: '/', notes: {}, warnings: []})
      send({type: 'exited', agent: 'A', attempt: state.attempts.get('A')!.attempt, result: {ok: false, finalText: '', rateLimited: true, reason: '429'}})
      notes.push(`${state.table.rows.get('A')!.status} ${renderNotes(state.table.rows.get('A')!.notes)}`)
      now = Math.max(state.pausedUntil, ...[...state.waits.values()].map(waitEnds))
      send({type: 'tick'})
    }
    // Pauses of 100 and 200 ms (300 in total); the next would be 400 more: over 350, so attempt 1 fails.
    expect(notes[0]).toMatch(/^pending paused: rate or usage limit \(429\)/)
    expect(notes[1]).toMatch(/^pending paused: rate or usage limit \(429\)/)
    expect(state.pausedFor.get('A')).toBe(300)
    // The failed attempt is retried at once (a failure is not a pause), and the next limit fails it again.
    expect(notes[2]).toBe('in_progress attempt 1: paused 300ms in total, the limit is 350ms (--max-pause), last cause: rate or usage limit (429)')
    expect(notes[3]).toMatch(/^in_progress attempt 1: .*; attempt 2: paused 300ms in total/)
  })
})
