import {describe, expect, it} from 'vitest'
import {Deliverer} from '../../../src/notify/deliverer.js'
import {openNotifier} from '../../../src/notify/notifier.js'
import {Outbox} from '../../../src/notify/outbox.js'
import type {NotifyTarget} from '../../../src/notify/notify-target.js'
import type {NotifyEvent} from '../../../src/notify/notify-event.js'
import type {SendResult} from '../../../src/notify/send-result.js'
import {notifyFolder} from '../../../src/layout/notify-folder.js'
import {everyEvent} from '../../../fixtures/report/events.js'
import type {RunEvent} from '../../../src/events.js'
import {sampleEvent, tempPlans} from '../../helpers/notify-sample.js'

const planFile = tempPlans()

const hook: NotifyTarget = {type: 'webhook', url: {env: 'HOOK'}, headersEnv: {}, key: 'webhook-1'}
const questionsOnly: NotifyTarget = {type: 'command', argv: ['x'], events: ['question'], key: 'command-2'}

/** A send that answers from a script, one answer per try, and remembers each try. */
function scripted(...answers: SendResult[]) {
  const tries: Array<{target: string; id: string}> = []
  const send = async (target: NotifyTarget, event: NotifyEvent): Promise<SendResult> => {
    tries.push({target: target.key, id: event.id})
    return answers.shift() ?? {kind: 'ok'}
  }
  return {tries, send}
}

describe('the delivery worker', () => {
  it('tries again after a retryable failure, and records the delivery once', async () => {
    const outbox = new Outbox(notifyFolder(planFile()))
    const {tries, send} = scripted({kind: 'retry', detail: 'HTTP 500'}, {kind: 'ok'})
    const deliverer = new Deliverer({outbox, targets: [hook], send, warn: () => {}, random: () => 0})
    const event = sampleEvent({time: new Date().toISOString()})
    outbox.append({event, targets: ['webhook-1']})
    deliverer.deliver(event, ['webhook-1'])
    expect(tries).toEqual([])
    expect(await deliverer.settle(60_000)).toBe(0)
    expect(tries).toEqual([
      {target: 'webhook-1', id: event.id},
      {target: 'webhook-1', id: event.id}
    ])
    expect([...outbox.settled().values()]).toEqual([{id: event.id, target: 'webhook-1', outcome: 'delivered', time: expect.any(String), tries: 2}])
    expect(outbox.pending()).toEqual([])
  })

  it('gives up on an event still not delivered a day after it happened', async () => {
    const outbox = new Outbox(notifyFolder(planFile()))
    const warnings: string[] = []
    const {tries, send} = scripted({kind: 'retry', detail: 'ECONNREFUSED'})
    const event = sampleEvent({time: '2026-01-15T14:24:00.000Z'})
    const deliverer = new Deliverer({outbox, targets: [hook], send, warn: (message) => warnings.push(message), now: () => Date.parse('2026-01-16T14:24:01.000Z')})
    deliverer.deliver(event, ['webhook-1'])
    expect(await deliverer.settle(60_000)).toBe(0)
    expect(tries).toHaveLength(1)
    expect([...outbox.settled().values()]).toMatchObject([{outcome: 'expired', detail: 'ECONNREFUSED'}])
    expect(warnings).toEqual([expect.stringMatching(/given up after 1 try in a day: ECONNREFUSED$/)])
  })

  it('a permanent failure is recorded and said once, never tried again', async () => {
    const outbox = new Outbox(notifyFolder(planFile()))
    const warnings: string[] = []
    const {tries, send} = scripted({kind: 'permanent', detail: 'HTTP 404: no such hook'})
    const deliverer = new Deliverer({outbox, targets: [hook], send, warn: (message) => warnings.push(message)})
    deliverer.deliver(sampleEvent(), ['webhook-1'])
    expect(await deliverer.settle(60_000)).toBe(0)
    expect(tries).toHaveLength(1)
    expect([...outbox.settled().values()]).toMatchObject([{outcome: 'failed', detail: 'HTTP 404: no such hook', tries: 1}])
    expect(warnings).toEqual([expect.stringMatching(/^notify: notification plan@1a2b3c4d:question:A:1:5f3e0c1a to webhook-1 failed for good: HTTP 404: no such hook/)])
  })

  it('waits no longer than its bound, then leaves what is under way in the outbox and ends it', async () => {
    const outbox = new Outbox(notifyFolder(planFile()))
    let aborted = false
    const send = (_target: NotifyTarget, _event: NotifyEvent, signal: AbortSignal) =>
      new Promise<SendResult>((resolve) => signal.addEventListener('abort', () => ((aborted = true), resolve({kind: 'retry', detail: 'aborted'}))))
    const deliverer = new Deliverer({outbox, targets: [hook], send, warn: () => {}})
    const event = sampleEvent()
    outbox.append({event, targets: ['webhook-1']})
    deliverer.deliver(event, ['webhook-1'])
    expect(await deliverer.settle(50)).toBe(1)
    deliverer.close()
    await new Promise((resolve) => setImmediate(resolve))
    expect(aborted).toBe(true)
    expect(outbox.pending()).toHaveLength(1)
    expect(outbox.settled().size).toBe(0)
  })

  it('a variable a target needs, not set: said once, its events left for a later run', async () => {
    const outbox = new Outbox(notifyFolder(planFile()))
    const warnings: string[] = []
    const {tries, send} = scripted({kind: 'later', detail: 'HOOK is not set'}, {kind: 'later', detail: 'HOOK is not set'})
    const deliverer = new Deliverer({outbox, targets: [hook], send, warn: (message) => warnings.push(message)})
    deliverer.deliver(sampleEvent({id: 'a'}), ['webhook-1'])
    deliverer.deliver(sampleEvent({id: 'b'}), ['webhook-1'])
    expect(await deliverer.settle(60_000)).toBe(2)
    expect(tries).toHaveLength(2)
    expect(warnings).toEqual([expect.stringMatching(/^notify: webhook-1: HOOK is not set; its notifications stay in .*outbox\.ndjson/)])
    expect(outbox.settled().size).toBe(0)
  })
})

describe('the notifier', () => {
  it('queues a notification once, for the targets that want it, before sending it', async () => {
    const file = planFile()
    const {tries, send} = scripted()
    const notifier = openNotifier({file, targets: [hook, questionsOnly], warn: () => {}, send})
    notifier.event(everyEvent.question)
    notifier.event(everyEvent.question)
    notifier.event({...(everyEvent.failed as Extract<RunEvent, {type: 'failed'}>), willRetry: false})
    notifier.event(everyEvent.completed)
    // Queued (on disk) before anything is sent: sending starts after the caller's turn.
    expect(notifier.outbox.entries().map((entry) => [entry.event.kind, entry.targets])).toEqual([
      ['question', ['webhook-1', 'command-2']],
      ['failed', ['webhook-1']]
    ])
    expect(tries).toEqual([])
    expect(await notifier.finish(60_000)).toBe(0)
    expect(tries.map((t) => `${t.target} ${t.id.split(':')[1]}`).sort()).toEqual(['command-2 question', 'webhook-1 failed', 'webhook-1 question'])
    expect(notifier.outbox.pending()).toEqual([])
  })

  it('the next notifier of the plan sends what an earlier one left, and does not queue an event it already holds', async () => {
    const file = planFile()
    const never = () => new Promise<SendResult>(() => {})
    const first = openNotifier({file, targets: [hook], warn: () => {}, send: never})
    first.event(everyEvent.question)
    // Killed before the send was recorded: nothing settles it.
    expect(first.outbox.pending()).toHaveLength(1)

    const {tries, send} = scripted()
    const second = openNotifier({file, targets: [hook], warn: () => {}, send})
    second.event(everyEvent.question)
    expect(await second.finish(60_000)).toBe(0)
    expect(tries).toHaveLength(1)
    expect(second.outbox.entries()).toHaveLength(1)
    expect([...second.outbox.settled().values()]).toMatchObject([{outcome: 'delivered'}])
    await first.finish(0)
  })
})
