import {describe, expect, it} from 'vitest'
import {interpretResult} from '../src/protocol/interpret-result.js'
import {resolveAnswer} from '../src/protocol/resolve-answer.js'
import type {RunResult} from '../src/runners/runner.js'

const run = (fields: Partial<RunResult>): RunResult => ({ok: true, finalText: '', ...fields})

describe('interpretResult', () => {
  it.each([
    ['exit 0, no RESULT', run({ok: true, finalText: 'done'}), {kind: 'completed'}],
    ['exit 1, no RESULT', run({ok: false, exitCode: 1, reason: 'exit 1: boom'}), {kind: 'failed', reason: 'exit 1: boom'}],
    ['no reason given', run({ok: false, exitCode: 3}), {kind: 'failed', reason: 'exit 3'}],
    ['SUCCESS', run({finalText: 'RESULT: SUCCESS\nAdded types'}), {kind: 'completed', note: 'Added types'}],
    ['SUCCESS wins over exit code', run({ok: false, exitCode: 1, finalText: 'RESULT: SUCCESS'}), {kind: 'completed'}],
    ['ERROR wins over exit 0', run({finalText: 'RESULT: ERROR\nDescription: tests fail\nDetails: 3 fail'}), {kind: 'failed', reason: 'tests fail', note: 'tests fail', details: '3 fail'}],
    ['timed out even with SUCCESS', run({ok: false, timedOut: true, reason: 'timed out after 5m 00s', finalText: 'RESULT: SUCCESS'}), {kind: 'failed', reason: 'timed out after 5m 00s'}],
    ['rate limited', run({ok: false, rateLimited: true, reason: 'API Error: 429'}), {kind: 'failed', rateLimited: true}],
    ['unknown session', run({ok: false, unknownSession: true, reason: 'exit 1: No conversation found'}), {kind: 'failed', unknownSession: true}]
  ])('%s', (_, result, expected) => {
    expect(interpretResult(result)).toMatchObject(expected)
  })

  it('turns a QUESTION into a question with its parts', () => {
    const outcome = interpretResult(
      run({finalText: 'RESULT: QUESTION\nQuestion: Redis or SQLite?\nContext: no store named\nResume State:\n```\nstep 3\n```\nOptions:\n1. Redis\n2. SQLite'})
    )
    expect(outcome).toMatchObject({
      kind: 'question',
      note: 'Redis or SQLite?',
      question: {question: 'Redis or SQLite?', context: 'no store named', resumeState: 'step 3', options: ['Redis', 'SQLite']},
      rateLimited: false,
      unknownSession: false
    })
  })

  it('keeps the checkpoint and discoveries of a completion report', () => {
    const outcome = interpretResult(
      run({ok: false, exitCode: 1, finalText: 'RESULT: ERROR\nDescription: ran out of time\n\n## Completion Report\nCheckpoint: step 4 of 6\nDiscoveries:\n- the schema has a hidden column\nFiles changed: a.ts'})
    )
    expect(outcome).toMatchObject({kind: 'failed', reason: 'ran out of time', checkpoint: 'step 4 of 6', discoveries: ['the schema has a hidden column'], filesChanged: ['a.ts']})
  })
})

describe('resolveAnswer', () => {
  it.each([
    ['Option 1', ['Redis', 'SQLite'], 'Option 1: Redis'],
    ['2', ['Redis', 'SQLite'], 'Option 2: SQLite'],
    ['option 2.', ['Redis', 'SQLite'], 'Option 2: SQLite'],
    ['Option 3', ['Redis', 'SQLite'], 'Option 3'],
    ['Use Postgres instead', ['Redis'], 'Use Postgres instead'],
    ['Option 1', [], 'Option 1']
  ])('%s', (answer, options, expected) => {
    expect(resolveAnswer(answer, options)).toBe(expected)
  })
})
