import {appendFileSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {Outbox} from '../../../src/notify/outbox.js'
import {notifyFolder} from '../../../src/layout/notify-folder.js'
import {sampleEvent, tempPlans} from '../../helpers/notify-sample.js'

const planFile = tempPlans()
const outbox = (): Outbox => new Outbox(notifyFolder(planFile()))

describe('the outbox', () => {
  it('lives under the plan’s .mdplan/notify/<key>/, which ignores itself in git', () => {
    const box = outbox()
    expect(box.folder).toMatch(/\/\.mdplan\/notify\/plan$/)
    box.append({event: sampleEvent(), targets: ['webhook-1']})
    expect(readFileSync(join(box.folder, '..', '..', '.gitignore'), 'utf8')).toBe('*\n')
  })

  it('keeps what was appended, and what no delivery settles is pending, per target', () => {
    const box = outbox()
    const a = sampleEvent({id: 'p:question:A:1:x'})
    const b = sampleEvent({id: 'p:failed:B:2', kind: 'failed', agent: 'B', attempt: 2})
    box.append({event: a, targets: ['webhook-1', 'command-2']})
    box.append({event: b, targets: ['webhook-1']})
    expect(box.pending().map((p) => `${p.event.id} ${p.target}`)).toEqual(['p:question:A:1:x webhook-1', 'p:question:A:1:x command-2', 'p:failed:B:2 webhook-1'])

    box.record({id: a.id, target: 'webhook-1', outcome: 'delivered', time: a.time, tries: 1})
    box.record({id: b.id, target: 'webhook-1', outcome: 'failed', time: b.time, tries: 1, detail: 'HTTP 404'})
    expect(box.pending().map((p) => `${p.event.id} ${p.target}`)).toEqual(['p:question:A:1:x command-2'])
    expect(box.settled().get(`${b.id}\nwebhook-1`)).toMatchObject({outcome: 'failed', detail: 'HTTP 404'})
    // A fresh reader (the next run) sees the same.
    expect(new Outbox(box.folder).pending()).toHaveLength(1)
  })

  it('holds each event id once: a rerun that queues it again adds nothing', () => {
    const box = outbox()
    box.append({event: sampleEvent(), targets: ['webhook-1']})
    box.append({event: sampleEvent({text: 'again'}), targets: ['webhook-1']})
    expect(box.entries()).toHaveLength(1)
    expect(box.entries()[0]!.event.text).toBe('A asks: Which store should A use?')
  })

  it('a line a crash cut short is skipped, and the next append starts on a line of its own', () => {
    const box = outbox()
    box.append({event: sampleEvent({id: 'first'}), targets: ['t']})
    // A coordinator killed in the middle of a write.
    appendFileSync(box.file, '{"event":{"v":1,"id":"torn","kind":"que')
    box.append({event: sampleEvent({id: 'after'}), targets: ['t']})
    box.record({id: 'first', target: 't', outcome: 'delivered', time: 'x', tries: 1})
    appendFileSync(box.deliveredFile, '{"id":"after","tar')
    expect(box.entries().map((entry) => entry.event.id)).toEqual(['first', 'after'])
    expect(box.pending().map((p) => p.event.id)).toEqual(['after'])
    box.record({id: 'after', target: 't', outcome: 'delivered', time: 'x', tries: 1})
    expect(box.pending()).toEqual([])
    expect(readFileSync(box.file, 'utf8').split('\n')).toHaveLength(4)
  })

  it('an outbox that was never written has nothing pending', () => {
    const box = outbox()
    expect(box.entries()).toEqual([])
    expect(box.pending()).toEqual([])
  })
})
