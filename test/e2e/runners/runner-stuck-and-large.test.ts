import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {claudeRunner} from '../../../src/runners/claude/claude.js'
import {codexRunner} from '../../../src/runners/codex/codex.js'
import {defaultAgentTimeoutMs} from '../../../src/runners/default-agent-timeout.js'
import {geminiRunner} from '../../../src/runners/gemini/gemini.js'
import {opencodeRunner} from '../../../src/runners/opencode/opencode.js'
import {argvPromptLimit} from '../../../src/runners/prompt-via-stdin.js'
import type {Runner, RunRequest} from '../../../src/runners/runner.js'
import {agentsDir, readArgvLog, request, tempDir, waitFor} from '../../helpers/runner-support.js'

const bins = {
  MDPLAN_CLAUDE_BIN: join(agentsDir, 'claude'),
  MDPLAN_CODEX_BIN: join(agentsDir, 'codex'),
  MDPLAN_GEMINI_BIN: join(agentsDir, 'gemini'),
  MDPLAN_OPENCODE_BIN: join(agentsDir, 'opencode')
}
Object.assign(process.env, bins)

function fakeRequest(dir: string, scenario: string, overrides: Partial<RunRequest> = {}, env: Record<string, string> = {}): RunRequest {
  return request(dir, {
    ...overrides,
    options: {
      ...overrides.options,
      env: {FAKE_SCENARIO: scenario, FAKE_ARGV_LOG: join(dir, 'argv.log'), FAKE_STATE_DIR: join(dir, 'state'), FAKE_STDIN_LOG: join(dir, 'stdin.log'), ...env}
    }
  })
}

function stdinReads(dir: string): number[] {
  try {
    return readFileSync(join(dir, 'stdin.log'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as {bytes: number}).bytes)
  } catch {
    return []
  }
}

describe('a CLI stuck retrying', () => {
  it('codex with no network: the timeout reason says it was waiting for network', async () => {
    const dir = tempDir()
    const result = await codexRunner.run(fakeRequest(dir, 'no-network', {timeoutMs: 3000}))
    expect(result.ok).toBe(false)
    expect(result.timedOut).toBe(true)
    expect(result.reason).toBe('timed out after 3s; codex: waiting for network (Reconnecting 5/5)')
    expect(result.transient).toBe(false)
    expect(result.configError).toBe(false)
  })

  it('codex with no network and no timeout keeps waiting until stopped (so a default timeout is needed)', async () => {
    const dir = tempDir()
    const controller = new AbortController()
    const running = codexRunner.run(fakeRequest(dir, 'no-network', {signal: controller.signal}))
    await waitFor(() => {
      try {
        return readFileSync(join(dir, 'logs', 'A-1.log'), 'utf8').includes('waiting for network')
      } catch {
        return false
      }
    })
    controller.abort()
    const result = await running
    expect(result.interrupted).toBe(true)
    expect(result.reason).toBe('interrupted')
    expect(defaultAgentTimeoutMs).toBe(60 * 60_000)
  })

  it('claude retrying the API: the timeout reason says which retry', async () => {
    const dir = tempDir()
    const result = await claudeRunner.run(fakeRequest(dir, 'api-retry-hang', {timeoutMs: 3000}))
    expect(result.timedOut).toBe(true)
    expect(result.reason).toBe('timed out after 3s; claude: API retry 3/10')
  })
})

describe('opencode session ID', () => {
  it('is reported while the first event has not come yet (found by its --title)', async () => {
    const dir = tempDir()
    const controller = new AbortController()
    const ids: string[] = []
    const running = opencodeRunner.run(fakeRequest(dir, 'no-network', {signal: controller.signal, onAgentId: (id) => void ids.push(id)}))
    await waitFor(() => ids.length > 0, 15_000)
    controller.abort()
    const result = await running
    expect(ids[0]).toMatch(/^ses_[0-9a-f]+$/)
    expect(result.agentId).toBe(ids[0])
    expect(result.interrupted).toBe(true)
    const state = JSON.parse(readFileSync(join(dir, 'state', 'opencode', `${ids[0]}.json`), 'utf8')) as {title: string}
    expect(readArgvLog(join(dir, 'argv.log'))[0]!.argv).toContain(state.title)
  })
})

describe('a prompt too large for argv (over 128 KiB fails with E2BIG)', () => {
  // About 300 KiB, with text a shell would mangle.
  const large = `Shared Contract\n${'const x = "$(touch pwned)"; // é\n'.repeat(9600)}end`
  const runners: Array<[string, Runner]> = [
    ['claude', claudeRunner],
    ['codex', codexRunner],
    ['gemini', geminiRunner],
    ['opencode', opencodeRunner]
  ]

  it('is over the limit', () => {
    expect(Buffer.byteLength(large)).toBeGreaterThan(290 * 1024)
    expect(Buffer.byteLength(large)).toBeGreaterThan(argvPromptLimit)
  })

  it.each(runners)('%s gets it through stdin, fresh and on resume', async (_, runner) => {
    const dir = tempDir()
    const first = await runner.run(fakeRequest(dir, 'ok', {prompt: large}))
    expect(first.reason).toBeUndefined()
    expect(first.ok).toBe(true)
    expect(first.finalText).toBe(large)
    const second = await runner.run(fakeRequest(dir, 'ok', {prompt: `${large}\nmore`, resume: {sessionId: first.agentId!}}))
    expect(second.ok).toBe(true)
    expect(second.agentId).toBe(first.agentId)
    expect(second.finalText).toBe(`${large}\nmore`)
    for (const call of readArgvLog(join(dir, 'argv.log'))) {
      for (const arg of call.argv) expect(Buffer.byteLength(arg)).toBeLessThan(argvPromptLimit)
    }
    expect(stdinReads(dir).filter((bytes) => bytes > argvPromptLimit)).toHaveLength(2)
  })

  it.each(runners)('%s still gets a small prompt as an argument', async (_, runner) => {
    const dir = tempDir()
    const result = await runner.run(fakeRequest(dir, 'ok', {prompt: 'small one'}))
    expect(result.ok).toBe(true)
    expect(readArgvLog(join(dir, 'argv.log'))[0]!.argv).toContain('small one')
  })
})
