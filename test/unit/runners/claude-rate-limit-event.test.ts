import {chmodSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {claudeRunner} from '../../../src/runners/claude/claude.js'
import {claudeRejectedUntil} from '../../../src/runners/claude/claude-rejected-until.js'
import {request, tempDir} from '../../helpers/runner-support.js'

// What claude 2.1.330 printed when its gateway account hit the 5-hour limit (npm run test:clis, usageLimit):
// a `rate_limit_event` that says `rejected` with `resetsAt` in epoch seconds, then the result's text,
// which says the same reset to the minute only.
const fixture = readFileSync(new URL('../../fixtures/limits/claude-rate-limit-event.jsonl', import.meta.url), 'utf8')
const lines = fixture.split('\n').filter((line) => line !== '')
const event = (line: string) => JSON.parse(line) as Record<string, unknown>

const saved = process.env.MDPLAN_CLAUDE_BIN
afterEach(() => {
  if (saved === undefined) delete process.env.MDPLAN_CLAUDE_BIN
  else process.env.MDPLAN_CLAUDE_BIN = saved
})

/** The claude runner over a fake claude that prints `stream` and exits 1. */
async function runOver(stream: string) {
  const dir = tempDir()
  const file = join(dir, 'stream.jsonl')
  writeFileSync(file, stream)
  const fake = join(dir, 'claude')
  writeFileSync(fake, `#!/bin/sh\ncat '${file}'\nexit 1\n`)
  chmodSync(fake, 0o755)
  process.env.MDPLAN_CLAUDE_BIN = fake
  return claudeRunner.run(request(dir))
}

describe('claude: the reset from the stream\'s rate_limit_event', () => {
  it('reads a refusal\'s resetsAt (seconds) as an instant in ms, and nothing from an allowed one', () => {
    expect(claudeRejectedUntil(event(lines[0]!))).toBe(1795855140 * 1000)
    expect(claudeRejectedUntil({type: 'rate_limit_event', rate_limit_info: {status: 'allowed', isUsingOverage: false}})).toBeUndefined()
    expect(claudeRejectedUntil({type: 'rate_limit_event', rate_limit_info: {status: 'rejected'}})).toBeUndefined()
    expect(claudeRejectedUntil({type: 'result', resetsAt: 5})).toBeUndefined()
  })

  it('a limited run resets at the event\'s second, not at the minute the text rounds to', async () => {
    // The same stream with a reset 23 s past the minute the text names.
    const result = await runOver(fixture.replaceAll('1795855140', '1795855163'))
    expect(result.ok).toBe(false)
    expect(result.rateLimited).toBe(true)
    expect(result.resetAt).toBe(1795855163 * 1000)
  })
})

describe('claude: a refusal that stops nothing', () => {
  it('a login on extra usage past its window is not limited, and a later failure is that failure', async () => {
    expect(claudeRejectedUntil({type: 'rate_limit_event', rate_limit_info: {status: 'rejected', resetsAt: 1795855140, isUsingOverage: true}})).toBeUndefined()
    expect(claudeRejectedUntil({type: 'rate_limit_event', rate_limit_info: {status: 'rejected', resetsAt: 1795855140, overageStatus: 'allowed'}})).toBeUndefined()
    const refused = {type: 'rate_limit_event', rate_limit_info: {status: 'rejected', resetsAt: 1795855140, rateLimitType: 'five_hour', isUsingOverage: false}}
    const allowed = {type: 'rate_limit_event', rate_limit_info: {status: 'allowed', isUsingOverage: false}}
    const crashed = {type: 'result', subtype: 'error_during_execution', is_error: true, result: '', errors: ['Tool crashed: ENOENT'], session_id: 's'}
    const result = await runOver([refused, allowed, crashed].map((line) => JSON.stringify(line)).join('\n') + '\n')
    expect(result.ok).toBe(false)
    expect(result.rateLimited).toBeFalsy()
    expect(result.resetAt).toBeUndefined()
  })
})
