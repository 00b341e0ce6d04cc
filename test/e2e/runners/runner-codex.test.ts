import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {codexRunner} from '../../../src/runners/codex/codex.js'
import {usageDelta} from '../../../src/runners/usage-delta.js'
import type {RunRequest} from '../../../src/runners/runner.js'
import {agentsDir, isAlive, readArgvLog, request, tempDir, waitFor} from '../../helpers/runner-support.js'

beforeAll(() => {
  process.env.MDPLAN_CODEX_BIN = join(agentsDir, 'codex')
})

function codexRequest(dir: string, scenario = 'ok', overrides: Partial<RunRequest> = {}, env: Record<string, string> = {}): RunRequest {
  return request(dir, {
    ...overrides,
    options: {
      ...overrides.options,
      env: {FAKE_SCENARIO: scenario, FAKE_ARGV_LOG: join(dir, 'argv.log'), FAKE_STATE_DIR: join(dir, 'state'), ...env}
    }
  })
}

const nasty = `-starts with a dash "q" 'q' $(touch pwned) \`touch pwned2\`\nsecond line\n`

describe('codex runner', () => {
  it('passes exact argv, learns the thread ID from thread.started, and takes the last agent_message', async () => {
    const dir = tempDir()
    const ids: string[] = []
    const result = await codexRunner.run(codexRequest(dir, 'ok', {prompt: nasty, options: {model: 'gpt-5-codex'}, onAgentId: (id) => void ids.push(id)}))
    expect(result.ok).toBe(true)
    const [call] = readArgvLog(join(dir, 'argv.log'))
    expect(call!.argv).toEqual(['exec', '--json', '--skip-git-repo-check', '--sandbox', 'workspace-write', '-C', dir, '-m', 'gpt-5-codex', '--', nasty])
    expect(ids).toHaveLength(1)
    expect(result.agentId).toBe(ids[0])
    expect(result.finalText).toBe(nasty)
    expect(existsSync(join(dir, 'pwned'))).toBe(false)
    expect(result.usage).toEqual({input_tokens: 1000, cached_input_tokens: 500, output_tokens: 100, reasoning_output_tokens: 10})
    expect(result.cumulativeUsage).toBe(true)
    expect(result.costUsd).toBeUndefined()
    expect(result.durationMs).toBeGreaterThan(0)
  })

  it('resumes with the flags before `resume <id>`, and per-run usage is the difference of totals', async () => {
    const dir = tempDir()
    const first = await codexRunner.run(codexRequest(dir))
    const ids: string[] = []
    const second = await codexRunner.run(codexRequest(dir, 'ok', {prompt: 'next', resume: {sessionId: first.agentId!}, onAgentId: (id) => void ids.push(id)}))
    expect(second.ok).toBe(true)
    expect(second.agentId).toBe(first.agentId)
    expect(ids).toEqual([first.agentId])
    const calls = readArgvLog(join(dir, 'argv.log'))
    expect(calls[1]!.argv).toEqual(['exec', '--json', '--skip-git-repo-check', '--sandbox', 'workspace-write', '-C', dir, 'resume', first.agentId, '--', 'next'])
    expect(second.usage!.input_tokens).toBe(2000)
    expect(usageDelta(second.usage!, first.usage)).toEqual({input_tokens: 1000, cached_input_tokens: 500, output_tokens: 100, reasoning_output_tokens: 10})
  })

  it('maps permission modes to sandboxes', async () => {
    const dir = tempDir()
    await codexRunner.run(codexRequest(dir, 'ok', {options: {permissionMode: 'plan'}}))
    await codexRunner.run(codexRequest(dir, 'ok', {options: {permissionMode: 'bypassPermissions'}}))
    const calls = readArgvLog(join(dir, 'argv.log'))
    expect(calls.map((call) => call.argv[4])).toEqual(['read-only', 'danger-full-access'])
  })

  it('flags an unknown thread on resume', async () => {
    const dir = tempDir()
    const result = await codexRunner.run(codexRequest(dir, 'ok', {resume: {sessionId: 'nope'}}))
    expect(result.ok).toBe(false)
    expect(result.unknownSession).toBe(true)
    expect(result.reason).toBe('exit 1: Error: thread/resume: thread/resume failed: no rollout found for thread id nope')
  })

  it('ignores Reconnecting errors and warning items', async () => {
    const dir = tempDir()
    const result = await codexRunner.run(codexRequest(dir, 'reconnect', {prompt: 'x'}))
    expect(result.ok).toBe(true)
    expect(result.finalText).toBe('x')
  })

  it.each([
    ['turn-failed', 'stream disconnected before completion: error sending request for url (https://api.openai.com/v1/responses)', false, 'transient'],
    [
      'not-logged-in',
      "unexpected status 401 Unauthorized: Missing bearer or basic authentication in header; check the API key (CODEX_API_KEY, `codex login`, or the model provider's env_key)",
      false,
      'config'
    ],
    ['rate-limit', 'exceeded retry limit, last status: 429 Too Many Requests', true, undefined],
    ['usage-limit', "You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 2 days 3 hours.", true, undefined]
  ])('fails on %s with the turn.failed message', async (scenario, reason, rateLimited, kind) => {
    const dir = tempDir()
    const result = await codexRunner.run(codexRequest(dir, scenario))
    expect(result.ok).toBe(false)
    expect(result.exitCode).toBe(1)
    expect(result.reason).toBe(reason)
    expect(result.rateLimited).toBe(rateLimited)
    expect(result.configError).toBe(kind === 'config')
    expect(result.transient).toBe(kind === 'transient')
    // `try again in 2 days 3 hours`: the account waits that long; a bare 429 does not say.
    if (scenario === 'usage-limit') expect(result.resetAt! - Date.now()).toBeGreaterThan((2 * 24 + 3) * 3_600_000 - 60_000)
    else expect(result.resetAt).toBeUndefined()
  })

  it('kills the whole tree on timeout', async () => {
    const dir = tempDir()
    const pidFile = join(dir, 'grandchild.pid')
    // Long enough for the fake (a Node) to start and spawn its grandchild on a loaded machine.
    const result = await codexRunner.run(codexRequest(dir, 'hang', {timeoutMs: 5000}, {FAKE_PID_FILE: pidFile}))
    expect(result.timedOut).toBe(true)
    expect(result.agentId).toBeDefined()
    await waitFor(() => !isAlive(Number(readFileSync(pidFile, 'utf8'))))
  })
})

describe('usageDelta', () => {
  it.each([
    [{a: 3000, b: 10}, {a: 2000, b: 4}, {a: 1000, b: 6}],
    [{a: 5}, undefined, {a: 5}],
    [{a: 5, c: 1}, {a: 2}, {a: 3, c: 1}],
    [{a: 100}, {a: 500}, {a: 100}]
  ])('%o after %o is %o', (current, previous, expected) => {
    expect(usageDelta(current, previous)).toEqual(expected)
  })
})
