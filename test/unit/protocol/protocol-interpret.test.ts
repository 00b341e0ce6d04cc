import {describe, expect, it} from 'vitest'
import {interpretResult} from '../../../src/protocol/interpret-result.js'
import {resolveAnswer} from '../../../src/protocol/resolve-answer.js'
import type {RunResult} from '../../../src/runners/runner.js'

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
    ['unknown session', run({ok: false, unknownSession: true, reason: 'exit 1: No conversation found'}), {kind: 'failed', unknownSession: true, permanent: false}],
    [
      'configuration error, even with SUCCESS printed',
      run({ok: false, configError: true, reason: 'Not logged in · Please run /login', finalText: 'RESULT: SUCCESS'}),
      {kind: 'failed', permanent: true, transient: false, reason: 'Not logged in · Please run /login'}
    ],
    ['network trouble', run({ok: false, transient: true, reason: "API Error: Can't reach the API server (ENOTFOUND)"}), {kind: 'failed', transient: true, permanent: false}],
    ['a timeout is neither', run({ok: false, timedOut: true, transient: true, reason: 'timed out after 1m 00s'}), {kind: 'failed', transient: false, permanent: false}],
    ['plain failure is neither', run({ok: false, exitCode: 1, reason: 'exit 1: boom'}), {permanent: false, transient: false}]
  ])('%s', (_, result, expected) => {
    expect(interpretResult(result)).toMatchObject(expected)
  })

  it('keeps the variable to set in the reason and the note, and the whole text in fullReason', () => {
    const message =
      'not authenticated (exit 41): Please set an Auth method in your /home/someone/.gemini/settings.json or specify one of the following environment variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA'
    const outcome = interpretResult(run({ok: false, exitCode: 41, configError: true, reason: message}))
    expect(outcome.permanent).toBe(true)
    expect(outcome.reason).toContain('GEMINI_API_KEY')
    expect(outcome.reason!.length).toBeLessThanOrEqual(160)
    expect(outcome.note).toContain('GEMINI_API_KEY')
    expect(outcome.note!.length).toBeLessThanOrEqual(120)
    expect(outcome.fullReason).toBe(message)
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
