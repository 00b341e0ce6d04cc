import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {claudeRunner, isAuthRetry} from '../../../src/runners/claude/claude.js'
import {agentsDir, request, tempDir} from '../../helpers/runner-support.js'

// Captured from the real Claude Code 2.1.330 pointed at a model server that answers 401 (npm run test:clis):
// its init line, then the first of the ten `api_retry` lines it would print over several minutes.
const captured = join(agentsDir, 'claude-2.1.330-auth-retry.jsonl')

beforeAll(() => {
  process.env.MDPLAN_CLAUDE_BIN = join(agentsDir, 'claude')
})

describe('claude retrying a refused API key', () => {
  it('recognises the captured api_retry line, and only that one', () => {
    const lines = readFileSync(captured, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(lines.map((line) => isAuthRetry(line))).toEqual([false, true])
    expect(isAuthRetry({type: 'system', subtype: 'api_retry', attempt: 1, max_retries: 10, error_status: 429, error: 'rate_limit'})).toBe(false)
    expect(isAuthRetry({type: 'system', subtype: 'api_retry', attempt: 1, max_retries: 10, error_status: null, error: 'unknown'})).toBe(false)
  })

  it('ends the agent at the first such line: a configuration error, with what to check', async () => {
    const dir = tempDir()
    // The fake prints the captured lines and then never ends, as claude does while it retries.
    const result = await claudeRunner.run(request(dir, {options: {env: {FAKE_SCENARIO: 'replay', FAKE_REPLAY: captured, FAKE_STATE_DIR: join(dir, 'state')}}}))
    expect(result.ok).toBe(false)
    expect(result.configError).toBe(true)
    expect(result.interrupted).toBeFalsy()
    expect(result.timedOut).toBeFalsy()
    expect(result.rateLimited).toBeFalsy()
    expect(result.reason).toMatch(/^API authentication failed 401 .*ANTHROPIC_API_KEY.*claude auth login/)
  }, 30_000)
})

describe('claude denying a tool under the permission mode', () => {
  // The real 2.1.330's result line after it refused `npm test` under acceptEdits: exit 0, `is_error: false`.
  const denied = join(agentsDir, 'claude-2.1.330-permission-denied.jsonl')

  it('fails a run with no RESULT line, and the note says what was refused and what to change', async () => {
    const dir = tempDir()
    const env = {FAKE_SCENARIO: 'replay', FAKE_REPLAY: denied, FAKE_REPLAY_END: '1', FAKE_STATE_DIR: join(dir, 'state')}
    const result = await claudeRunner.run(request(dir, {options: {env}}))
    expect(result.exitCode).toBe(0)
    expect(result.ok).toBe(false)
    expect(result.configError).toBeFalsy()
    expect(result.reason).toBe('claude denied Bash `npm test` under permission mode acceptEdits: allow it with allowed_tools or choose another permission_mode')
  })
})
