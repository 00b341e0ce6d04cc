import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {execFileSync} from 'node:child_process'
import {beforeAll, describe, expect, it} from 'vitest'
import {claudeRunner} from '../../../src/runners/claude/claude.js'
import type {RunRequest} from '../../../src/runners/runner.js'
import {agentsDir, isAlive, readArgvLog, request, tempDir, waitFor} from '../../helpers/runner-support.js'

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

beforeAll(() => {
  process.env.MDPLAN_CLAUDE_BIN = join(agentsDir, 'claude')
})

/** A request whose fake claude logs argv and keeps sessions in `dir`. */
function claudeRequest(dir: string, scenario = 'ok', overrides: Partial<RunRequest> = {}, env: Record<string, string> = {}): RunRequest {
  return request(dir, {
    ...overrides,
    options: {
      ...overrides.options,
      env: {FAKE_SCENARIO: scenario, FAKE_ARGV_LOG: join(dir, 'argv.log'), FAKE_STATE_DIR: join(dir, 'state'), ...env}
    }
  })
}

const nasty = `He said "hi" & 'bye'; $(touch pwned) \`touch pwned2\` $HOME\nline two\n\ttab \\ backslash -- --allowedTools x\n`

describe('claude runner', () => {
  it('reports the session ID before spawning, passes exact argv, and records cost, turns and duration', async () => {
    const dir = tempDir()
    const ids: string[] = []
    let spawnedBeforeId = true
    const result = await claudeRunner.run(
      claudeRequest(dir, 'ok', {
        prompt: nasty,
        options: {model: 'sonnet', allowedTools: ['Bash(npm test:*)', 'Edit'], maxTurns: 5, maxBudgetUsd: 1.5},
        onAgentId: (id) => {
          ids.push(id)
          spawnedBeforeId = existsSync(join(dir, 'argv.log'))
        }
      })
    )
    expect(result.ok).toBe(true)
    expect(ids).toHaveLength(1)
    expect(ids[0]).toMatch(uuid)
    expect(spawnedBeforeId).toBe(false)
    expect(result.agentId).toBe(ids[0])
    const [call] = readArgvLog(join(dir, 'argv.log'))
    expect(call!.argv).toEqual([
      '-p', '--output-format', 'stream-json', '--verbose', '--session-id', ids[0],
      '--permission-mode', 'acceptEdits', '--model', 'sonnet', '--max-turns', '5', '--max-budget-usd', '1.5',
      '--allowedTools', 'Bash(npm test:*)', 'Edit', '--', nasty
    ])
    expect(call!.cwd).toBe(dir)
    expect(result.finalText).toBe(nasty)
    expect(existsSync(join(dir, 'pwned'))).toBe(false)
    expect(existsSync(join(dir, 'pwned2'))).toBe(false)
    expect(result.costUsd).toBe(0.0008)
    expect(result.turns).toBe(2)
    expect(result.durationMs).toBe(1234)
    expect(result.usage).toMatchObject({input_tokens: 100, output_tokens: 20})
    expect(result.cliVersion).toBe('2.1.330')
    expect(readFileSync(join(dir, 'logs', 'A-1.log'), 'utf8')).toContain('"type":"result"')
  })

  it('resumes the same session from the original folder with -r and the same options', async () => {
    const dir = tempDir()
    const first = await claudeRunner.run(claudeRequest(dir, 'ok', {options: {permissionMode: 'plan'}}))
    const ids: string[] = []
    const second = await claudeRunner.run(
      claudeRequest(dir, 'ok', {
        prompt: 'follow-up',
        resume: {sessionId: first.agentId!},
        options: {permissionMode: 'plan'},
        onAgentId: (id) => {
          ids.push(id)
        }
      })
    )
    expect(second.ok).toBe(true)
    expect(second.agentId).toBe(first.agentId)
    expect(ids).toEqual([first.agentId])
    const calls = readArgvLog(join(dir, 'argv.log'))
    expect(calls[1]!.argv).toEqual(['-p', '--output-format', 'stream-json', '--verbose', '-r', first.agentId, '--permission-mode', 'plan', '--', 'follow-up'])
    expect(calls[1]!.cwd).toBe(dir)
    // 2.1.330 reports the session's running total after a resume.
    expect(second.costUsd).toBe(0.0016)
    expect(second.cumulativeCost).toBe(true)
    expect(first.cumulativeCost).toBe(false)
  })

  it('flags an unknown session on resume (unknown ID, or another folder)', async () => {
    const dir = tempDir()
    const unknown = await claudeRunner.run(claudeRequest(dir, 'ok', {resume: {sessionId: '00000000-0000-4000-8000-000000000000'}}))
    expect(unknown.ok).toBe(false)
    expect(unknown.unknownSession).toBe(true)
    expect(unknown.reason).toBe('exit 1: No conversation found with session ID: 00000000-0000-4000-8000-000000000000')
    const first = await claudeRunner.run(claudeRequest(dir))
    const elsewhere = tempDir()
    const moved = await claudeRunner.run(
      claudeRequest(dir, 'ok', {cwd: elsewhere, resume: {sessionId: first.agentId!}})
    )
    expect(moved.unknownSession).toBe(true)
  })

  it('relaunches once with a new UUID when the session ID is already in use', async () => {
    const dir = tempDir()
    const ids: string[] = []
    const result = await claudeRunner.run(
      claudeRequest(dir, 'ok', {onAgentId: (id) => void ids.push(id)}, {FAKE_COLLIDE_ONCE: '1'})
    )
    expect(result.ok).toBe(true)
    expect(ids).toHaveLength(2)
    expect(ids[0]).not.toBe(ids[1])
    expect(result.agentId).toBe(ids[1])
    const calls = readArgvLog(join(dir, 'argv.log'))
    expect(calls.map((call) => call.argv[5])).toEqual(ids)
  })

  it.each([
    ['not-logged-in', 'Not logged in · Please run /login (run `claude auth login` or set ANTHROPIC_API_KEY)', false, 'config'],
    ['api-500', 'API Error: 500 {"type":"error","error":{"type":"api_error","message":"Internal server error"}}', false, 'transient'],
    ['no-network', "API Error: Can't reach the API server (getaddrinfo ENOTFOUND api.anthropic.com)", false, 'transient'],
    ['max-turns', 'max turns: Reached maximum number of turns (3)', false, undefined],
    ['budget', 'budget exhausted: Reached maximum budget ($0.01)', false, undefined],
    ['rate-limit', undefined, true, undefined],
    ['usage-limit', 'Claude AI usage limit reached · resets 5pm', true, undefined],
    ['overloaded', undefined, true, undefined]
  ])('fails on %s (exit 1, is_error true) with the CLI reason', async (scenario, reason, rateLimited, kind) => {
    const dir = tempDir()
    const result = await claudeRunner.run(claudeRequest(dir, scenario, {options: {maxTurns: 3}}))
    expect(result.ok).toBe(false)
    expect(result.exitCode).toBe(1)
    if (reason !== undefined) expect(result.reason).toBe(reason)
    expect(result.rateLimited).toBe(rateLimited)
    expect(result.configError).toBe(kind === 'config')
    expect(result.transient).toBe(kind === 'transient')
    expect(result.unknownSession).toBe(false)
    // `… usage limit reached · resets 5pm`: the next 5pm here; a bare 429 or 529 does not say when.
    if (scenario === 'usage-limit') expect(result.resetAt! - Date.now()).toBeLessThanOrEqual(24 * 3_600_000)
    else expect(result.resetAt).toBeUndefined()
  })

  it('uses the last result when a second init/result pair follows', async () => {
    const dir = tempDir()
    const result = await claudeRunner.run(claudeRequest(dir, 'second-result', {prompt: 'final words'}))
    expect(result.ok).toBe(true)
    expect(result.finalText).toBe('final words')
    expect(result.costUsd).toBeCloseTo(0.0012)
  })

  it('is not ok when the result is fine but the exit code is not 0, nor when the exit is 0 without a result', async () => {
    const dir = tempDir()
    const script = join(dir, 'claude-like')
    const { writeFileSync, chmodSync } = await import('node:fs')
    writeFileSync(script, '#!/bin/sh\necho \'{"type":"result","subtype":"success","is_error":false,"result":"done"}\'\nexit 0\n')
    chmodSync(script, 0o755)
    process.env.MDPLAN_CLAUDE_BIN = script
    try {
      expect((await claudeRunner.run(request(dir))).ok).toBe(true)
      writeFileSync(script, '#!/bin/sh\necho \'{"type":"result","subtype":"success","is_error":false,"result":"done"}\'\nexit 2\n')
      expect((await claudeRunner.run(request(dir))).ok).toBe(false)
      writeFileSync(script, '#!/bin/sh\necho "no json"\nexit 0\n')
      const none = await claudeRunner.run(request(dir))
      expect(none.ok).toBe(false)
      expect(none.reason).toBe('exit 0')
    } finally {
      process.env.MDPLAN_CLAUDE_BIN = join(agentsDir, 'claude')
    }
  })

  it('reports a missing CLI as a failed start', async () => {
    const dir = tempDir()
    process.env.MDPLAN_CLAUDE_BIN = join(dir, 'no-such-claude')
    try {
      const result = await claudeRunner.run(request(dir))
      expect(result.ok).toBe(false)
      expect(result.spawnFailed).toBe(true)
      expect(result.reason).toMatch(/^could not start/)
    } finally {
      process.env.MDPLAN_CLAUDE_BIN = join(agentsDir, 'claude')
    }
  })

  it('kills the whole tree on timeout', async () => {
    const dir = tempDir()
    const pidFile = join(dir, 'grandchild.pid')
    // Long enough for the fake (a Node) to start and spawn its grandchild on a loaded machine.
    const result = await claudeRunner.run(claudeRequest(dir, 'hang', {timeoutMs: 5000}, {FAKE_PID_FILE: pidFile}))
    expect(result.ok).toBe(false)
    expect(result.timedOut).toBe(true)
    expect(result.reason).toBe('timed out after 5s')
    const grandchild = Number(readFileSync(pidFile, 'utf8'))
    await waitFor(() => !isAlive(grandchild))
  })

  it('kills the whole tree on abort', async () => {
    const dir = tempDir()
    const pidFile = join(dir, 'grandchild.pid')
    const controller = new AbortController()
    const running = claudeRunner.run(claudeRequest(dir, 'hang', {signal: controller.signal}, {FAKE_PID_FILE: pidFile}))
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '')
    controller.abort()
    const result = await running
    expect(result.interrupted).toBe(true)
    expect(result.reason).toBe('interrupted')
    await waitFor(() => !isAlive(Number(readFileSync(pidFile, 'utf8'))))
  })
})

describe('fake claude', () => {
  it('refuses a prompt swallowed by a variadic flag, like the real one', () => {
    const dir = tempDir()
    let stderr = ''
    try {
      execFileSync(join(agentsDir, 'claude'), ['-p', '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Edit', 'do it'], {
        cwd: dir,
        env: {...process.env, FAKE_STATE_DIR: join(dir, 'state')},
        stdio: ['ignore', 'pipe', 'pipe']
      })
    } catch (error) {
      stderr = String((error as {stderr: Buffer}).stderr)
      expect((error as {status: number}).status).toBe(1)
    }
    expect(stderr).toContain('"do it" was read as a value of --allowedTools, not as a prompt · put a prompt before --allowedTools or after --')
  })

  it('refuses a reused --session-id with the real message', () => {
    const dir = tempDir()
    const args = ['-p', '--output-format', 'stream-json', '--verbose', '--session-id', '12345678-1234-4234-8234-123456789abc', '--', 'x']
    const options = {cwd: dir, stdio: 'pipe' as const, env: {...process.env, FAKE_STATE_DIR: join(dir, 'state')}}
    execFileSync(join(agentsDir, 'claude'), args, options)
    expect(() => execFileSync(join(agentsDir, 'claude'), args, options)).toThrow(
      /Error: Session ID 12345678-1234-4234-8234-123456789abc is already in use\./
    )
  })

  it('needs --verbose for stream-json', () => {
    const dir = tempDir()
    expect(() =>
      execFileSync(join(agentsDir, 'claude'), ['-p', '--output-format', 'stream-json', '--', 'x'], {cwd: dir, stdio: 'pipe', env: {...process.env, FAKE_STATE_DIR: join(dir, 'state')}})
    ).toThrow(/requires --verbose/)
  })
})
