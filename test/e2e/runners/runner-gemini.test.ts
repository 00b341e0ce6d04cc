import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {geminiRunner} from '../../../src/runners/gemini/gemini.js'
import type {RunRequest} from '../../../src/runners/runner.js'
import {agentsDir, readArgvLog, request, tempDir} from '../../helpers/runner-support.js'

beforeAll(() => {
  process.env.MDPLAN_GEMINI_BIN = join(agentsDir, 'gemini')
})

function geminiRequest(dir: string, scenario = 'ok', overrides: Partial<RunRequest> = {}): RunRequest {
  return request(dir, {
    ...overrides,
    options: {...overrides.options, env: {...overrides.options?.env, FAKE_SCENARIO: scenario, FAKE_ARGV_LOG: join(dir, 'argv.log'), FAKE_STATE_DIR: join(dir, 'state')}}
  })
}

const nasty = `Quote "a" 'b' $(touch pwned) \`touch pwned2\`\nline 2 = with equals\n`

describe('gemini runner', () => {
  it('chooses the session ID before spawning and passes exact argv', async () => {
    const dir = tempDir()
    let spawnedBeforeId = true
    const ids: string[] = []
    const result = await geminiRunner.run(
      geminiRequest(dir, 'ok', {
        prompt: nasty,
        options: {model: 'gemini-2.5-pro'},
        onAgentId: (id) => {
          ids.push(id)
          spawnedBeforeId = existsSync(join(dir, 'argv.log'))
        }
      })
    )
    expect(result.ok).toBe(true)
    expect(spawnedBeforeId).toBe(false)
    expect(result.agentId).toBe(ids[0])
    const [call] = readArgvLog(join(dir, 'argv.log'))
    expect(call!.argv).toEqual(['-o', 'stream-json', '--skip-trust', '--session-id', ids[0], '--approval-mode', 'auto_edit', '-m', 'gemini-2.5-pro', '-p', nasty])
    expect(result.finalText).toBe(nasty)
    expect(existsSync(join(dir, 'pwned'))).toBe(false)
    expect(result.durationMs).toBe(2345)
    expect(result.usage).toMatchObject({total_tokens: 1200, input_tokens: 1000})
    expect(result.costUsd).toBeUndefined()
  })

  it('keeps a prompt that starts with a dash a value', async () => {
    const dir = tempDir()
    const result = await geminiRunner.run(geminiRequest(dir, 'ok', {prompt: '--yolo is not a flag here'}))
    expect(result.finalText).toBe('--yolo is not a flag here')
  })

  it('resumes with --resume from the same folder, and flags an unknown session', async () => {
    const dir = tempDir()
    const first = await geminiRunner.run(geminiRequest(dir))
    const second = await geminiRunner.run(geminiRequest(dir, 'ok', {prompt: 'more', resume: {sessionId: first.agentId!}}))
    expect(second.ok).toBe(true)
    expect(second.agentId).toBe(first.agentId)
    expect(readArgvLog(join(dir, 'argv.log'))[1]!.argv).toEqual(['-o', 'stream-json', '--skip-trust', '--resume', first.agentId, '--approval-mode', 'auto_edit', '-p', 'more'])
    const unknown = await geminiRunner.run(geminiRequest(dir, 'ok', {resume: {sessionId: 'f0f0f0f0-0000-4000-8000-000000000000'}}))
    expect(unknown.unknownSession).toBe(true)
    const elsewhere = await geminiRunner.run(geminiRequest(dir, 'ok', {cwd: tempDir(), resume: {sessionId: first.agentId!}}))
    expect(elsewhere.unknownSession).toBe(true)
    expect(elsewhere.reason).toBe('exit 1: No previous sessions found for this project.')
  })

  it('explains exit 55 (untrusted folder) and 42 (input)', async () => {
    const dir = tempDir()
    const script = join(dir, 'gemini-like')
    const {writeFileSync, chmodSync} = await import('node:fs')
    writeFileSync(script, '#!/bin/sh\necho "The folder is not trusted." >&2\nexit 55\n')
    chmodSync(script, 0o755)
    process.env.MDPLAN_GEMINI_BIN = script
    try {
      expect((await geminiRunner.run(geminiRequest(dir))).reason).toBe('workspace not trusted (exit 55): The folder is not trusted.')
      writeFileSync(script, '#!/bin/sh\nexit 42\n')
      expect((await geminiRunner.run(geminiRequest(dir))).reason).toBe('invalid input (exit 42)')
    } finally {
      process.env.MDPLAN_GEMINI_BIN = join(agentsDir, 'gemini')
    }
  })

  it.each([
    [
      'not-logged-in',
      41,
      'not authenticated (exit 41): Please set an Auth method in your /home/u/.gemini/settings.json or specify one of the following environment variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA',
      false,
      'config'
    ],
    ['max-turns', 53, 'turn limit reached (exit 53): Reached max session turns for this session.', false, undefined],
    ['api-500', 1, 'exit 1: [API Error: got status: 500 Internal Server Error.]', false, 'transient'],
    ['rate-limit', 1, undefined, true, undefined]
  ])('fails on %s with exit %i', async (scenario, exitCode, reason, rateLimited, kind) => {
    const dir = tempDir()
    const result = await geminiRunner.run(geminiRequest(dir, scenario, {options: {env: {GEMINI_CLI_HOME: '/home/u'}}}))
    expect(result.ok).toBe(false)
    expect(result.exitCode).toBe(exitCode)
    if (reason) expect(result.reason).toBe(reason)
    expect(result.rateLimited).toBe(rateLimited)
    expect(result.configError).toBe(kind === 'config')
    expect(result.transient).toBe(kind === 'transient')
    // `Your quota will reset after 2h.`
    if (rateLimited) expect(result.resetAt! - Date.now()).toBeGreaterThan(2 * 3_600_000 - 60_000)
  })
})
