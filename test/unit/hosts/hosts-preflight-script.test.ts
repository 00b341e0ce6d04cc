import {execFileSync} from 'node:child_process'
import {chmodSync, mkdirSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {preflightScript} from '../../../src/hosts/preflight-script.js'
import {tempDir} from '../../helpers/runner-support.js'

/**
 * The host half of preflight, run here with `sh` as ssh runs it there: a login check that does not answer
 * within the limit is reported as such (`authslow`), never as an answer, and a host without `timeout` (no
 * limit at all) is asked to install it instead of running the check unbounded.
 */
function hostWith(tools: string[], answersAfter = 3): {bin: string; dir: string} {
  const root = tempDir()
  const bin = join(root, 'bin')
  mkdirSync(bin)
  for (const tool of tools) {
    const found = execFileSync('sh', ['-c', `command -v ${tool}`], {encoding: 'utf8'}).trim()
    symlinkSync(found, join(bin, tool))
  }
  // A CLI whose status command answers "logged in" after `answersAfter` seconds.
  writeFileSync(join(bin, 'slowcli'), `#!/bin/sh\nsleep ${answersAfter}\necho '{"loggedIn": true}'\n`)
  chmodSync(join(bin, 'slowcli'), 0o755)
  return {bin, dir: join(root, 'jobs')}
}

const basics = ['git', 'tar', 'setsid', 'tail', 'xargs', 'base64', 'df', 'awk', 'mktemp', 'tr', 'mkdir', 'rm', 'cat', 'sleep']

function preflight(bin: string, dir: string, limitSeconds: number): string[] {
  const out = execFileSync('/bin/sh', ['-c', preflightScript, 'mdplan', dir, String(limitSeconds), 'slowcli', '--', 'cli', 'slowcli', 'auth', 'status'], {env: {PATH: bin, HOME: dir}, encoding: 'utf8'})
  return out.split('\n').filter((line) => !line.startsWith('disk ') && line !== '')
}

describe('preflightScript', () => {
  // The CLIs that must not be waited for answer after 30 s, far from the 1 s limit on both sides: a bound of
  // 2.9 s against an answer at 3 s left a loaded machine less than 2 s for the rest of the script.
  it('a login check that does not answer within the limit is `authslow`, not an answer', () => {
    const {bin, dir} = hostWith([...basics, 'timeout'], 30)
    const started = Date.now()
    expect(preflight(bin, dir, 1)).toEqual(['authslow 0'])
    // Cut at the limit, not waited for.
    expect(Date.now() - started).toBeLessThan(20_000)
  })

  it('one that answers in time is its answer', () => {
    const {bin, dir} = hostWith([...basics, 'timeout'])
    const [line] = preflight(bin, dir, 10)
    expect(line).toMatch(/^auth 0 0 \S+ $/)
    expect(Buffer.from(line!.split(' ')[3]!, 'base64').toString()).toContain('"loggedIn": true')
  })

  it('a host without `timeout` is told to install it (the check would run without a limit)', () => {
    const {bin, dir} = hostWith(basics, 30)
    const started = Date.now()
    expect(preflight(bin, dir, 1)).toEqual(['missing timeout'])
    // The check is not asked at all.
    expect(Date.now() - started).toBeLessThan(20_000)
  })

  it('gemini: what it picks its auth from there, as facts, never a value: variables, the settings files in order, .env files', () => {
    const {bin, dir} = hostWith([...basics, 'timeout', 'sed', 'grep', 'dirname', 'pwd'])
    writeFileSync(join(bin, 'gemini'), '#!/bin/sh\necho asked >&2\nexit 1\n')
    chmodSync(join(bin, 'gemini'), 0o755)
    const home = join(dir, '..', 'home')
    mkdirSync(join(home, '.gemini'), {recursive: true})
    writeFileSync(join(home, '.gemini', 'settings.json'), '{\n  "security": {\n    "auth": {"selectedType": "vertex-ai"}\n  }\n}\n')
    writeFileSync(join(home, '.env'), 'OTHER=1\nexport GOOGLE_CLOUD_PROJECT=p\n')
    const system = join(home, 'system.json')
    writeFileSync(system, '{"selectedAuthType": "oauth-personal"}')
    const env = {PATH: bin, HOME: home, GEMINI_API_KEY: 's3cret', GOOGLE_GENAI_USE_VERTEXAI: 'true', CLOUD_SHELL: 'false', GEMINI_CLI_SYSTEM_SETTINGS_PATH: system}
    const out = execFileSync('/bin/sh', ['-c', preflightScript, 'mdplan', dir, '5', 'gemini', '--', 'gemini', 'gemini'], {env, encoding: 'utf8'})
    const facts = out.split('\n').filter((line) => line.startsWith('fact '))
    expect(facts).toEqual([
      'fact 0 env GEMINI_API_KEY set',
      'fact 0 env GOOGLE_GENAI_USE_VERTEXAI true',
      'fact 0 env CLOUD_SHELL false',
      'fact 0 selected home vertex-ai',
      'fact 0 selected system oauth-personal',
      'fact 0 envfile',
      'fact 0 read'
    ])
    expect(out).not.toContain('s3cret')
    expect(out).not.toMatch(/^auth /m)
  })

  it('opencode: a provider configured there is a fact, and `auth list` is not asked; without one it is asked with the passed names set', () => {
    const {bin, dir} = hostWith([...basics, 'timeout', 'grep', 'dirname', 'pwd'])
    writeFileSync(join(bin, 'opencode'), '#!/bin/sh\necho "$* ${ANTHROPIC_API_KEY:-none} ${X_1:-none}"\n')
    chmodSync(join(bin, 'opencode'), 0o755)
    const home = join(dir, '..', 'home')
    const ask = (names: string) => execFileSync('/bin/sh', ['-c', preflightScript, 'mdplan', dir, '5', 'opencode', '--', 'opencode', 'opencode', names], {env: {PATH: bin, HOME: home}, encoding: 'utf8'})
    const [answer] = ask('ANTHROPIC_API_KEY,X_1,bad-name').split('\n').filter((line) => line.startsWith('auth '))
    expect(Buffer.from(answer!.split(' ')[3]!, 'base64').toString()).toBe('auth list mdplan-preflight mdplan-preflight')
    mkdirSync(join(home, '.config', 'opencode'), {recursive: true})
    writeFileSync(join(home, '.config', 'opencode', 'opencode.json'), '{\n  "provider": {"local": {}}\n}\n')
    const configured = ask('-').split('\n')
    expect(configured).toContain('fact 0 config')
    expect(configured.some((line) => line.startsWith('auth '))).toBe(false)
  })
})
