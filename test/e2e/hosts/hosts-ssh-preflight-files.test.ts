import {existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {chmod, mkdtemp, readFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli} from '../../helpers/run-cli.js'
import {sshdMissing, startSshd, type SshdFixture} from '../../helpers/sshd.js'

/**
 * A host's preflight of gemini and opencode logins, against a real sshd on 127.0.0.1 whose sessions get a
 * HOME and PATH of the test's own (another machine's account): fake `gemini` and `opencode` on that PATH.
 * They used to be checked for presence only, so a host logged out of either launched every agent (gemini
 * exits 41; opencode falls back to its hosted default and waits on the network). Now the host's preflight
 * reads what the local preflight reads, there: gemini's settings files, environment and `.env` files;
 * opencode's config files, then `opencode auth list`. The keys a host passes by name count.
 */
const missing = sshdMissing()
if (missing) console.log(`hosts-ssh-preflight-files: skipped: ${missing}`)

const fakes = fileURLToPath(new URL('../../../fixtures/agents/', import.meta.url))
const gitEnv = () => ({GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'})

let sshd: SshdFixture
let home: string
let bin: string

/** Each call of a fake on the host, `CLI ARGV…`. */
function calls(): string[] {
  const file = join(bin, 'calls')
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : []
}

beforeAll(async () => {
  await isolateGitConfig()
  if (missing) return
  const dir = await mkdtemp(join(tmpdir(), 'mdplan-host-account-'))
  home = join(dir, 'home')
  bin = join(dir, 'bin')
  mkdirSync(home)
  mkdirSync(bin)
  // opencode is logged in there when its credential file is (as `opencode auth list` reads it).
  for (const cli of ['gemini', 'opencode']) {
    const loggedOut = cli === 'opencode' ? '[ -f "$HOME/.local/share/opencode/auth.json" ] || export FAKE_AUTH=none\n' : ''
    writeFileSync(join(bin, cli), `#!/bin/sh\necho "${cli} $*" >> '${join(bin, 'calls')}'\nexport FAKE_STATE_DIR='${join(dir, 'state')}' FAKE_SCENARIO=ok\n${loggedOut}exec '${process.execPath}' '${join(fakes, cli)}' "$@"\n`)
    await chmod(join(bin, cli), 0o755)
  }
  sshd = await startSshd(1, {env: {HOME: home, PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`}})
}, 30_000)
afterAll(() => sshd?.close())
beforeEach(() => {
  if (missing) return
  rmSync(join(bin, 'calls'), {force: true})
  for (const name of readdirSync(home)) rmSync(join(home, name), {recursive: true, force: true})
})

function plan(env: string[] = []): string {
  const h = sshd.hosts[0]!
  const agent = (id: string, runner: string) => [`### ${id}: ${runner}-work`, '- **depends_on**: []', `- **runner**: ${runner}`, '- **prompt**: |', '    Do the work.', '']
  return [
    '---',
    'hosts:',
    `  ${h.alias}: {type: ssh, address: ${h.alias}, config: '${sshd.config}', dir: '${h.dir}', slots: 2${env.length ? `, env: [${env.join(', ')}]` : ''}}`,
    `host: ${h.alias}`,
    '---',
    '',
    '# Parallel Plan: remote logins',
    '',
    '## Agents',
    '',
    ...agent('G', 'gemini'),
    ...agent('O', 'opencode')
  ].join('\n')
}

function jobs(): string[] {
  const folder = join(sshd.hosts[0]!.dir, 'jobs')
  return existsSync(folder) ? readdirSync(folder) : []
}

describe.skipIf(missing !== undefined)('preflight of a host: gemini and opencode logged in there', () => {
  it('both logged out on the host: one line each with the fix, exit 2, the plan untouched, nothing launched', async () => {
    const repo = await tempRepo({'plan.md': plan()})
    const file = join(repo.root, 'plan.md')
    const before = await readFile(file, 'utf8')
    const result = await runCli(['run', file], {cwd: repo.root, env: gitEnv()})
    expect(result.exitCode, result.all).toBe(2)
    const lines = result.stderr.split('\n').filter((line) => line.includes('host h1 (h1)'))
    expect(lines, result.stderr).toHaveLength(2)
    expect(lines.find((line) => line.includes('gemini'))).toMatch(
      /host h1 \(h1\): gemini has no auth method there \(it would exit 41.*\): pass a key with `env: \[GEMINI_API_KEY\]` on the host .*or run `gemini` once on h1/
    )
    expect(lines.find((line) => line.includes('opencode'))).toMatch(
      /host h1 \(h1\): opencode has no provider there \(`opencode auth list` on h1 shows 0 credentials.*\): run `opencode auth login` on h1, or pass a provider key by name with `env: \[ANTHROPIC_API_KEY\]`/
    )
    expect(await readFile(file, 'utf8')).toBe(before)
    // gemini's files were read, gemini never started; opencode was asked `auth list` once, never run.
    expect(calls()).toEqual(['opencode auth list'])
    expect(jobs()).toEqual([])
    await repo.cleanup()
  }, 60_000)

  it('logged in by their files in the host\'s HOME (gemini\'s settings, opencode\'s credentials): the run goes ahead, each agent runs there once', async () => {
    mkdirSync(join(home, '.gemini'))
    writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify({security: {auth: {selectedType: 'oauth-personal'}}}, null, 2))
    mkdirSync(join(home, '.local', 'share', 'opencode'), {recursive: true})
    writeFileSync(join(home, '.local', 'share', 'opencode', 'auth.json'), '{"anthropic": {"type": "api", "key": "k"}}')
    const repo = await tempRepo({'plan.md': plan()})
    const file = join(repo.root, 'plan.md')
    const result = await runCli(['run', file], {cwd: repo.root, env: gitEnv()})
    expect(result.exitCode, result.all).toBe(0)
    expect(calls().filter((call) => call.includes('auth'))).toEqual(['opencode auth list'])
    expect(calls().filter((call) => call.startsWith('gemini ') && !call.includes('auth'))).toHaveLength(1)
    expect(calls().filter((call) => call.startsWith('opencode run'))).toHaveLength(1)
    const {rows} = await readTable(file)
    expect(rows.G!.status).toBe('completed')
    expect(rows.O!.status).toBe('completed')
    await repo.cleanup()
  }, 90_000)

  it('logged out there, but the host passes keys by name (`env: [GEMINI_API_KEY, ANTHROPIC_API_KEY]`): the run goes ahead', async () => {
    const repo = await tempRepo({'plan.md': plan(['GEMINI_API_KEY', 'ANTHROPIC_API_KEY'])})
    const file = join(repo.root, 'plan.md')
    const result = await runCli(['run', file], {cwd: repo.root, env: {...gitEnv(), GEMINI_API_KEY: 'g-key', ANTHROPIC_API_KEY: 'a-key'}})
    expect(result.exitCode, result.all).toBe(0)
    // opencode's `auth list` there saw the passed variable (a stand-in, never its value) as its agents will.
    expect(calls().filter((call) => call.includes('auth'))).toEqual(['opencode auth list'])
    expect(result.all).not.toContain('a-key')
    await repo.cleanup()
  }, 90_000)

  it('the provider configured in the project\'s committed opencode.json, gemini\'s auth type in its .gemini/settings.json: nothing is asked, the run goes ahead', async () => {
    const repo = await tempRepo({
      'plan.md': plan(),
      'opencode.json': JSON.stringify({provider: {local: {options: {baseURL: 'http://127.0.0.1:1'}}}}),
      '.gemini/settings.json': JSON.stringify({security: {auth: {selectedType: 'gemini-api-key'}}})
    })
    const file = join(repo.root, 'plan.md')
    const result = await runCli(['run', file], {cwd: repo.root, env: gitEnv()})
    expect(result.exitCode, result.all).toBe(0)
    expect(calls().filter((call) => call.includes('auth'))).toEqual([])
    await repo.cleanup()
  }, 90_000)
})
