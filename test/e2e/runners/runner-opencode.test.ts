import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {opencodeRunner} from '../../../src/runners/opencode/opencode.js'
import type {RunRequest} from '../../../src/runners/runner.js'
import {agentsDir, readArgvLog, request, tempDir} from '../../helpers/runner-support.js'

beforeAll(() => {
  process.env.MDPLAN_OPENCODE_BIN = join(agentsDir, 'opencode')
})

function opencodeRequest(dir: string, scenario = 'ok', overrides: Partial<RunRequest> = {}): RunRequest {
  return request(dir, {
    ...overrides,
    options: {...overrides.options, env: {FAKE_SCENARIO: scenario, FAKE_ARGV_LOG: join(dir, 'argv.log'), FAKE_STATE_DIR: join(dir, 'state')}}
  })
}

const nasty = `Quote "a" 'b' $(touch pwned) \`touch pwned2\`\nline 2\n`

describe('opencode runner', () => {
  it('passes exact argv, learns the session ID from events, sums step costs', async () => {
    const dir = tempDir()
    const ids: string[] = []
    const result = await opencodeRunner.run(opencodeRequest(dir, 'ok', {prompt: nasty, options: {model: 'anthropic/claude-sonnet-4-5'}, onAgentId: (id) => void ids.push(id)}))
    expect(result.ok).toBe(true)
    expect(readArgvLog(join(dir, 'argv.log'))[0]!.argv).toEqual(['run', '--format', 'json', '--print-logs', '--title', expect.stringMatching(/^mdplan A [0-9a-f]{8}$/), '-m', 'anthropic/claude-sonnet-4-5', nasty])
    expect(ids).toHaveLength(1)
    expect(ids[0]).toMatch(/^ses_/)
    expect(result.agentId).toBe(ids[0])
    expect(result.finalText).toBe(nasty)
    expect(existsSync(join(dir, 'pwned'))).toBe(false)
    expect(result.costUsd).toBeCloseTo(0.003)
    expect(result.turns).toBe(2)
    expect(result.usage).toMatchObject({input: 1700, output: 100})
  })

  it('says what the attempt has spent at each step as it ends (a budget can stop it between steps)', async () => {
    const dir = tempDir()
    const said: unknown[] = []
    await opencodeRunner.run(opencodeRequest(dir, 'ok', {onSpend: (spent) => void said.push(spent)}))
    expect(said).toEqual([
      {usage: {input: 800, output: 50, reasoning: 0, 'cache.read': 0, 'cache.write': 0}, costUsd: 0.001},
      {usage: {input: 1700, output: 100, reasoning: 0, 'cache.read': 0, 'cache.write': 0}, costUsd: 0.003}
    ])
  })

  it('puts -- before a prompt that starts with a dash', async () => {
    const dir = tempDir()
    const result = await opencodeRunner.run(opencodeRequest(dir, 'ok', {prompt: '- item one\n- item two'}))
    expect(readArgvLog(join(dir, 'argv.log'))[0]!.argv).toEqual(['run', '--format', 'json', '--print-logs', '--title', expect.any(String), '--', '- item one\n- item two'])
    expect(result.finalText).toBe('- item one\n- item two')
  })

  it('resumes with -s and flags an unknown session', async () => {
    const dir = tempDir()
    const first = await opencodeRunner.run(opencodeRequest(dir))
    const second = await opencodeRunner.run(opencodeRequest(dir, 'ok', {prompt: 'more', resume: {sessionId: first.agentId!}}))
    expect(second.ok).toBe(true)
    expect(second.agentId).toBe(first.agentId)
    expect(readArgvLog(join(dir, 'argv.log'))[1]!.argv).toEqual(['run', '--format', 'json', '--print-logs', '-s', first.agentId, 'more'])
    const unknown = await opencodeRunner.run(opencodeRequest(dir, 'ok', {resume: {sessionId: 'ses_nope'}}))
    expect(unknown.ok).toBe(false)
    expect(unknown.unknownSession).toBe(true)
    expect(unknown.reason).toBe('exit 1: Error: Session not found')
  })

  it.each([
    [
      'bad-model',
      'ProviderModelNotFoundError: Model not found: nope/nope. Did you mean: standardcompute? (UnknownError: Unexpected server error. Check server logs for details.)',
      false,
      'config'
    ],
    ['not-logged-in', 'ProviderAuthError: No API key found for provider anthropic', false, 'config'],
    ['api-500', 'APIError: Internal server error', false, 'transient'],
    ['rate-limit', 'APIError: Rate limit exceeded: 429 Too Many Requests', true, undefined]
  ])('fails on %s with the error event (the log names the cause)', async (scenario, reason, rateLimited, kind) => {
    const dir = tempDir()
    const result = await opencodeRunner.run(opencodeRequest(dir, scenario))
    expect(result.ok).toBe(false)
    expect(result.reason).toBe(reason)
    expect(result.rateLimited).toBe(rateLimited)
    expect(result.configError).toBe(kind === 'config')
    expect(result.transient).toBe(kind === 'transient')
  })

  it('reads when a limit resets from the provider\'s retry-after header; a bare 429 has no reset', async () => {
    const dir = tempDir()
    const before = Date.now()
    const limited = await opencodeRunner.run(opencodeRequest(dir, 'usage-limit'))
    expect(limited.rateLimited).toBe(true)
    expect(limited.resetAt).toBeGreaterThanOrEqual(before + 30_000)
    expect(limited.resetAt).toBeLessThanOrEqual(Date.now() + 30_000)
    expect((await opencodeRunner.run(opencodeRequest(dir, 'rate-limit'))).resetAt).toBeUndefined()
  })
})
