import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach} from 'vitest'
import type {NotifyEvent} from '../../src/notify/notify-event.js'

/** A notification as a run makes one, for the notify tests. */
export function sampleEvent(over: Partial<NotifyEvent> = {}): NotifyEvent {
  return {
    v: 1,
    id: 'plan@1a2b3c4d:question:A:1:5f3e0c1a',
    kind: 'question',
    time: '2026-01-15T14:24:00.000Z',
    plan: '/home/me/app/plan.md',
    agent: 'A',
    attempt: 1,
    text: 'A asks: Which store should A use?',
    needs_you: true,
    ...over
  }
}

/** For a test file: `planFile()` makes a plan file in a temp folder of its own, removed after the test. */
export function tempPlans(): () => string {
  const dirs: string[] = []
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
  })
  return () => {
    const dir = mkdtempSync(join(tmpdir(), 'mdplan-notify-'))
    dirs.push(dir)
    const file = join(dir, 'plan.md')
    writeFileSync(file, '# plan\n')
    return file
  }
}
