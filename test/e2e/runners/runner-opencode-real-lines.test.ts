import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {opencodeRunner} from '../../../src/runners/opencode/opencode.js'
import {agentsDir, readArgvLog, request, tempDir} from '../../helpers/runner-support.js'

beforeAll(() => {
  process.env.MDPLAN_OPENCODE_BIN = join(agentsDir, 'opencode')
})

function opencodeRequest(dir: string, scenario: string) {
  return request(dir, {options: {env: {FAKE_SCENARIO: scenario, FAKE_ARGV_LOG: join(dir, 'argv.log'), FAKE_STATE_DIR: join(dir, 'state')}}})
}

describe('opencode, as the real 1.18.33 behaves (npm run test:clis)', () => {
  it('runs with PWD set to the agent folder: opencode takes its project from PWD, not from its working directory', async () => {
    const dir = tempDir()
    expect(process.env.PWD).not.toBe(dir)
    const result = await opencodeRunner.run(opencodeRequest(dir, 'ok'))
    expect(result.ok).toBe(true)
    const [call] = readArgvLog(join(dir, 'argv.log')) as Array<{cwd: string; pwd?: string}>
    expect(call!.cwd).toBe(dir)
    expect(call!.pwd).toBe(dir)
  })

  it('fails a run in which opencode refused a tool call and that ends with no RESULT line, naming the call and the permission', async () => {
    const dir = tempDir()
    const result = await opencodeRunner.run(opencodeRequest(dir, 'rejected'))
    expect(result.exitCode).toBe(0)
    expect(result.ok).toBe(false)
    expect(result.configError).toBeFalsy()
    expect(result.reason).toMatch(/^opencode rejected write `.*\/elsewhere\/q\.txt` \(permission external_directory \(.*\/elsewhere\/\*\)\): allow it in opencode\.json's permission, or choose permission_mode bypassPermissions$/)
  })
})

describe('opencode and a provider that refuses the key', () => {
  it('is a configuration error (fail once), and the note says what to check', async () => {
    const dir = tempDir()
    const result = await opencodeRunner.run(opencodeRequest(dir, 'unauthorized'))
    expect(result.ok).toBe(false)
    expect(result.configError).toBe(true)
    expect(result.transient).toBeFalsy()
    expect(result.reason).toBe("APIError: invalid x-api-key (status 401): check the provider's API key (opencode.json's provider options.apiKey, or `opencode auth login`)")
  })
})
