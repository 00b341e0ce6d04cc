import {describe, expect, it} from 'vitest'
import {readTable, runCli} from '../../helpers/run-cli.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {startReceiver} from '../../helpers/webhook-receiver.js'
import {asking, hookTarget, notifyFiles, notifyProject, notifyTestFile} from './notify-helpers.js'

const cleanups = notifyTestFile()

describe('notifications to a webhook (a real git repository, a receiver on 127.0.0.1)', () => {
  it('a question, an agent failed for good and the run’s end: exactly one delivery each; a rerun sends only its own end', async () => {
    const receiver = await startReceiver()
    cleanups.push(() => receiver.close())
    const project = await notifyProject((log) => ({Q: {script: asking(log)}, F: {script: logged(log, 'echo broken >&2; exit 1')}, P: {script: logged(log, 'true')}}), ['concurrency: 3', 'max_attempts: 2', hookTarget()].join('\n'))
    cleanups.push(project.cleanup)
    const env = {MDPLAN_TEST_HOOK: receiver.url, MDPLAN_TEST_TOKEN: 'Bearer t0k3n'}

    const first = await runCli(['run', project.plan], {cwd: project.repo.root, env})
    expect(first.exitCode, first.all).toBe(1)
    const {rows} = await readTable(project.plan)
    expect([rows.Q!.status, rows.F!.status, rows.P!.status]).toEqual(['needs_input', 'failed', 'completed'])
    // F's first failure is tried again, not told: only its last one (attempt 2) is.
    const ran = await readAgentLog(project.log)
    expect(ran.starts).toEqual(new Map([['Q#1', 1], ['F#1', 1], ['F#2', 1], ['P#1', 1]]))
    await receiver.received(3)
    const bodies = receiver.deliveries.map((d) => d.body)
    expect(bodies.map((b) => `${b.kind} ${b.agent ?? ''} ${b.attempt ?? ''}`).sort()).toEqual(['failed F 2', 'question Q 1', 'run_finished  '])
    expect(new Set(bodies.map((b) => b.id)).size).toBe(3)
    for (const delivery of receiver.deliveries) {
      expect(delivery.headers['idempotency-key']).toBe(delivery.body.id)
      expect(delivery.headers.authorization).toBe('Bearer t0k3n')
      expect(delivery.body.needs_you).toBe(true)
    }
    expect(bodies.find((b) => b.kind === 'question')!.text).toBe('Q asks: Which store should Q use?')
    expect(bodies.find((b) => b.kind === 'run_finished')).toMatchObject({exit_code: 1, counts: {completed: 1, failed: 1, needs_input: 1}})
    const after = notifyFiles(project.repo)
    expect(after.queued.sort()).toEqual(bodies.map((b) => b.id).sort())
    expect(after.settled.map((s) => `${s.id} ${s.outcome}`).sort()).toEqual(bodies.map((b) => `${b.id} delivered`).sort())
    // The secret is read from the environment, never written anywhere mdplan keeps.
    expect((await project.repo.read('plan.md')).includes('t0k3n')).toBe(false)

    const second = await runCli(['run', project.plan], {cwd: project.repo.root, env})
    expect(second.exitCode, second.all).toBe(1)
    await receiver.received(4)
    expect(receiver.deliveries.slice(3).map((d) => d.body.kind)).toEqual(['run_finished'])
    expect(receiver.deliveries[3]!.body.id).not.toBe(bodies.find((b) => b.kind === 'run_finished')!.id)
    expect(receiver.deliveries).toHaveLength(4)
    // Nothing was left to launch: the rerun's only news is its own end.
    expect((await readAgentLog(project.log)).lines).toEqual(ran.lines)
  })

  it('a receiver that answers 500 first gets the event again, with the same id, and it is recorded delivered once', async () => {
    const receiver = await startReceiver((delivery) => (delivery.index === 0 ? 500 : 200))
    cleanups.push(() => receiver.close())
    const project = await notifyProject((log) => ({Q: {script: asking(log)}}), hookTarget('[question]'))
    cleanups.push(project.cleanup)
    // The run may wait for the retry as long as it needs here: what is checked is the retry, not the run's bound.
    const run = await runCli(['run', project.plan], {cwd: project.repo.root, env: {MDPLAN_TEST_HOOK: receiver.url, MDPLAN_TEST_TOKEN: 'x', MDPLAN_NOTIFY_WAIT_MS: '60000'}})
    expect(run.exitCode, run.all).toBe(1)
    expect(receiver.deliveries.map((d) => d.body.kind)).toEqual(['question', 'question'])
    expect(receiver.deliveries[1]!.body.id).toBe(receiver.deliveries[0]!.body.id)
    expect(receiver.deliveries.map((d) => d.headers['idempotency-key'])).toEqual([receiver.deliveries[0]!.body.id, receiver.deliveries[0]!.body.id])
    expect(notifyFiles(project.repo).settled).toEqual([expect.objectContaining({id: receiver.deliveries[0]!.body.id, outcome: 'delivered', tries: 2})])
    expect(run.all).not.toMatch(/not delivered yet/)
  })

  it('a receiver that answers only after 10 s delays no launch: the agents after the question started before it answered', {timeout: 120_000}, async () => {
    const log: {seen?: string[]} = {}
    let agentLog = ''
    const receiver = await startReceiver(async () => {
      await new Promise((resolve) => setTimeout(resolve, 10_000))
      log.seen = (await readAgentLog(agentLog)).lines
      return 200
    })
    cleanups.push(() => receiver.close())
    // One at a time, the asker first (the longest estimate): B and C launch after its question was queued.
    const project = await notifyProject(
      (file) => ({A: {script: asking(file), estimate: '10m'}, B: {script: logged(file, 'true'), estimate: '1m'}, C: {script: logged(file, 'true'), estimate: '1m'}}),
      ['concurrency: 1', hookTarget('[question]')].join('\n')
    )
    cleanups.push(project.cleanup)
    agentLog = project.log
    const run = await runCli(['run', project.plan], {cwd: project.repo.root, env: {MDPLAN_TEST_HOOK: receiver.url, MDPLAN_TEST_TOKEN: 'x'}})
    expect(run.exitCode, run.all).toBe(1)
    await receiver.answered(1)
    const order = (lines: string[]) => lines.map((line) => line.split(' ').slice(0, 2).join(' '))
    const all = order((await readAgentLog(project.log)).lines)
    expect(all.slice(0, 2)).toEqual(['start A', 'end A'])
    expect(all.slice(2).sort()).toEqual(['end B', 'end C', 'start B', 'start C'])
    // When the receiver answered its first request, both had already started (and ended).
    expect(order(log.seen!).sort()).toEqual(all.slice().sort())
    expect(receiver.deliveries).toHaveLength(1)
  })
})
