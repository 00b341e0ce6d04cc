import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {attemptNumber} from '../../../src/executor/attempt-number.js'
import {failuresOf} from '../../../src/executor/schedule-pass.js'
import {readNotes} from '../../../src/executor/row-notes.js'
import {loggedAttempts} from '../../../src/layout/logged-attempts.js'

describe('attemptNumber', () => {
  it('a retry, a re-queue and a re-queue with the Notes cleared each take the next number', () => {
    expect(attemptNumber(readNotes(''), 0, false)).toBe(1)
    expect(attemptNumber(readNotes('attempt 1: exit 1'), 1, false)).toBe(2)
    expect(attemptNumber(readNotes('base: 1a2b'), 1, false)).toBe(2)
    expect(attemptNumber(readNotes(''), 3, false)).toBe(4)
    // Notes a person kept from an older history, with no logs (a fresh clone): the notes count.
    expect(attemptNumber(readNotes('attempt 2: x'), 0, false)).toBe(3)
  })

  it('an attempt that never ended on its own goes on with its number', () => {
    expect(attemptNumber(readNotes('base: 1a2b'), 2, true)).toBe(2)
    expect(attemptNumber(readNotes('attempt 1: x'), 0, true)).toBe(2)
    expect(attemptNumber(readNotes('paused: rate or usage limit (x), retrying at 10:00:00Z'), 2, false)).toBe(2)
    expect(attemptNumber(readNotes('relaunched: session s-1 could not be resumed'), 1, false)).toBe(1)
    // A re-queued agent (its completed attempt 1 left a log, no note) whose run died before its attempt 2's launch made a log.
    expect(attemptNumber(readNotes('job: local mdplan4-plan-A-a2-00beef'), 1, true)).toBe(2)
  })
})

describe('failuresOf', () => {
  it('counts the failed attempts, not their highest number', () => {
    expect(failuresOf(readNotes('attempt 1: a; attempt 2: b'))).toBe(2)
    expect(failuresOf(readNotes('attempt 2: a; attempt 4: b; base: 1a2b'))).toBe(2)
    expect(failuresOf(readNotes('TODO'))).toBe(0)
  })
})

describe('loggedAttempts', () => {
  it('reads the highest attempt of each agent from its logs, IDs with dots included', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'mdplan-logs-'))
    try {
      expect(loggedAttempts(join(cwd, 'plan.md'), cwd)).toEqual(new Map())
      const dir = join(cwd, '.mdplan', 'logs', 'plan')
      mkdirSync(dir, {recursive: true})
      for (const name of ['A.1.log', 'A.3.log', 'A.2.log', 'a.1.7.log', 'run.ndjson', 'build.1.log.tmp']) writeFileSync(join(dir, name), '')
      expect(loggedAttempts(join(cwd, 'plan.md'), cwd)).toEqual(new Map([['A', 3], ['a.1', 7]]))
    } finally {
      rmSync(cwd, {recursive: true, force: true})
    }
  })
})
