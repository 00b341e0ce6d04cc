import {describe, expect, it} from 'vitest'
import {readTable, runCli, startCli} from '../../helpers/run-cli.js'
import {readAgentLog} from '../../helpers/agent-log.js'
import {startReceiver} from '../../helpers/webhook-receiver.js'
import {startServe} from '../serve/serve-helpers.js'
import {asking, hookTarget, notifyFiles, notifyProject, notifyTestFile} from './notify-helpers.js'

const cleanups = notifyTestFile()

describe('notifications across a coordinator SIGKILL (a real git repository, a receiver on 127.0.0.1)', () => {
  it('killed after the event was queued, before its delivery was recorded: mdplan serve sends it, then the rerun sends nothing again', {timeout: 120_000}, async () => {
    // The first request is held open: the coordinator is killed while it waits for the answer.
    let release: (status: number) => void = () => {}
    const held = new Promise<number>((resolve) => (release = resolve))
    const receiver = await startReceiver((delivery) => (delivery.index === 0 ? held : 200))
    cleanups.push(async () => (release(200), await receiver.close()))
    const project = await notifyProject((log) => ({A: {script: asking(log)}}), hookTarget('[question]'))
    cleanups.push(project.cleanup)
    const env = {MDPLAN_TEST_HOOK: receiver.url, MDPLAN_TEST_TOKEN: 'x'}

    const run = startCli(['run', project.plan], {cwd: project.repo.root, env})
    await receiver.received(1)
    run.kill('SIGKILL')
    expect((await run).signal).toBe('SIGKILL')
    const id = receiver.deliveries[0]!.body.id
    // On disk, synced before the send: queued, and nothing says it was delivered.
    expect(notifyFiles(project.repo)).toEqual({queued: [id], settled: []})
    release(200)

    // `mdplan serve` (no run holds the plan) sends what the killed run left.
    const serve = await startServe([project.plan], project.repo.root, env)
    cleanups.push(async () => void (serve.process.kill('SIGTERM'), await serve.process))
    await receiver.received(2)
    for (const delivery of receiver.deliveries) {
      expect(delivery.body.id).toBe(id)
      expect(delivery.headers['idempotency-key']).toBe(id)
    }
    for (let waited = 0; notifyFiles(project.repo).settled.length === 0 && waited < 30_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(notifyFiles(project.repo).settled).toEqual([expect.objectContaining({id, outcome: 'delivered'})])
    serve.process.kill('SIGTERM')
    await serve.process

    // The rerun finds the question (collected from the job the killed run left, or already on the row): nothing more to send.
    const rerun = await runCli(['run', project.plan], {cwd: project.repo.root, env})
    expect(rerun.exitCode, rerun.all).toBe(1)
    expect((await readTable(project.plan)).rows.A!.status).toBe('needs_input')
    expect(receiver.deliveries).toHaveLength(2)
    expect(notifyFiles(project.repo)).toEqual({queued: [id], settled: [expect.objectContaining({id, outcome: 'delivered'})]})
    expect((await readAgentLog(project.log)).starts).toEqual(new Map([['A#1', 1]]))
  })

  it('killed with the event queued: the rerun delivers it, none lost, a duplicate only with the same id', {timeout: 120_000}, async () => {
    let release: (status: number) => void = () => {}
    const held = new Promise<number>((resolve) => (release = resolve))
    const receiver = await startReceiver((delivery) => (delivery.index === 0 ? held : 200))
    cleanups.push(async () => (release(200), await receiver.close()))
    const project = await notifyProject((log) => ({A: {script: asking(log)}, B: {script: asking(log)}}), ['concurrency: 2', hookTarget('[question]')].join('\n'))
    cleanups.push(project.cleanup)
    const env = {MDPLAN_TEST_HOOK: receiver.url, MDPLAN_TEST_TOKEN: 'x'}

    const run = startCli(['run', project.plan], {cwd: project.repo.root, env})
    await receiver.received(1)
    run.kill('SIGKILL')
    await run
    release(200)

    const rerun = await runCli(['run', project.plan], {cwd: project.repo.root, env})
    expect(rerun.exitCode, rerun.all).toBe(1)
    const {rows} = await readTable(project.plan)
    expect([rows.A!.status, rows.B!.status]).toEqual(['needs_input', 'needs_input'])
    // Both questions reached the receiver; every request for one carries that one's id, in body and header.
    const ids = new Set(receiver.deliveries.map((d) => d.body.id))
    expect([...ids].map((id) => id.split(':')[2]).sort()).toEqual(['A', 'B'])
    for (const delivery of receiver.deliveries) expect(delivery.headers['idempotency-key']).toBe(delivery.body.id)
    const {queued, settled} = notifyFiles(project.repo)
    expect(queued.sort()).toEqual([...ids].sort())
    expect(settled.map((s) => `${s.id} ${s.outcome}`).sort()).toEqual([...ids].map((id) => `${id} delivered`).sort())
    expect(rerun.all).not.toMatch(/not delivered yet/)
  })
})
