import {chmod, mkdtemp, readFile, writeFile} from 'node:fs/promises'
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {runCli} from '../../helpers/run-cli.js'
import {sshdMissing, startSshd, type SshdFixture} from '../../helpers/sshd.js'

// Issue 21: a host's preflight asks the runner's CLI there whether it is logged in (`claude auth status`).

const missing = sshdMissing()
if (missing) console.log(`hosts-ssh-preflight: skipped: ${missing}`)

const fakeClaude = fileURLToPath(new URL('../../../fixtures/agents/claude', import.meta.url))
const gitEnv = () => ({GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'})

let sshd: SshdFixture
beforeAll(async () => {
  await isolateGitConfig()
  if (!missing) sshd = await startSshd(1)
}, 30_000)
afterAll(() => sshd?.close())

/**
 * A `claude` as the host has it: the fake CLI with its state (logged in or
 * not) fixed in a wrapper, since the host's sessions do not inherit this
 * process's environment. Every call appends its argv to a log.
 */
async function hostClaude(loggedIn: boolean, authDelayMs = 0): Promise<{file: string; calls: () => string[][]}> {
  const dir = await mkdtemp(join(tmpdir(), 'mdplan-host-claude-'))
  const file = join(dir, 'claude')
  const env = [`FAKE_STATE_DIR='${join(dir, 'state')}'`, 'FAKE_SCENARIO=ok', `FAKE_AUTH_DELAY_MS=${authDelayMs}`, ...(loggedIn ? [] : ['FAKE_AUTH=none'])]
  await writeFile(file, `#!/bin/sh\necho "$*" >> '${join(dir, 'calls')}'\nexport ${env.join(' ')}\nexec '${process.execPath}' '${fakeClaude}' "$@"\n`)
  await chmod(file, 0o755)
  const calls = () => (existsSync(join(dir, 'calls')) ? readFileSync(join(dir, 'calls'), 'utf8').trim().split('\n').map((line) => line.split(' ')) : [])
  return {file, calls}
}

function claudePlan(): string {
  const h = sshd.hosts[0]!
  return [
    '---',
    'runner: claude',
    'hosts:',
    `  ${h.alias}: {type: ssh, address: ${h.alias}, config: '${sshd.config}', dir: '${h.dir}', slots: 2}`,
    `host: ${h.alias}`,
    '---',
    '',
    '# Parallel Plan: remote claude',
    '',
    '## Agents',
    '',
    '### A: work',
    '- **depends_on**: []',
    '- **prompt**: |',
    '    Do the work.',
    ''
  ].join('\n')
}

describe.skipIf(missing !== undefined)('preflight of a host: the CLI logged in there', () => {
  it('a claude that says it is logged out on the host: one line with the fix, exit 2, the plan untouched, nothing launched', async () => {
    const claude = await hostClaude(false)
    const repo = await tempRepo({'plan.md': claudePlan()})
    const plan = join(repo.root, 'plan.md')
    const before = await readFile(plan, 'utf8')
    const result = await runCli(['run', plan], {cwd: repo.root, env: {...gitEnv(), MDPLAN_CLAUDE_BIN: claude.file}})
    expect(result.exitCode, result.all).toBe(2)
    const lines = result.stderr.split('\n').filter((line) => line.includes('not logged in'))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/host h1 \(h1\): claude is not logged in there \(`claude auth status` says "loggedIn": false\): run `claude auth login` on h1/)
    expect(await readFile(plan, 'utf8')).toBe(before)
    // Asked once, on the host; never run with a prompt.
    expect(claude.calls()).toEqual([['auth', 'status']])
    const jobs = join(sshd.hosts[0]!.dir, 'jobs')
    expect(existsSync(jobs) ? readdirSync(jobs) : []).toEqual([])
    await repo.cleanup()
  })

  // `timeout 20` on the host used to let a check that never answered pass: the run launched claude there unconfirmed.
  it('a claude whose `auth status` does not answer on the host within the limit: one line naming the command, the limit and what to do, exit 2, nothing launched', async () => {
    const claude = await hostClaude(true, 6000)
    const repo = await tempRepo({'plan.md': claudePlan()})
    const plan = join(repo.root, 'plan.md')
    const before = await readFile(plan, 'utf8')
    const result = await runCli(['run', plan], {cwd: repo.root, env: {...gitEnv(), MDPLAN_CLAUDE_BIN: claude.file, MDPLAN_LOGIN_CHECK_TIMEOUT_MS: '1000'}})
    expect(result.exitCode, result.all).toBe(2)
    const lines = result.stderr.split('\n').filter((line) => line.includes('could not be confirmed'))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(
      /host h1 \(h1\): claude's login could not be confirmed on h1: `claude auth status` did not answer within 1s, so nothing was launched: run `claude auth status` on h1 yourself .*; or pass a key with `env: \[ANTHROPIC_API_KEY\]` on the host/
    )
    expect(await readFile(plan, 'utf8')).toBe(before)
    expect(claude.calls()).toEqual([['auth', 'status']])
    const jobs = join(sshd.hosts[0]!.dir, 'jobs')
    expect(existsSync(jobs) ? readdirSync(jobs) : []).toEqual([])
    await repo.cleanup()
  }, 30_000)

  it('a claude logged in on the host: the run goes ahead and the agent runs there once', async () => {
    const claude = await hostClaude(true)
    const repo = await tempRepo({'plan.md': claudePlan()})
    const plan = join(repo.root, 'plan.md')
    const result = await runCli(['run', plan], {cwd: repo.root, env: {...gitEnv(), MDPLAN_CLAUDE_BIN: claude.file}})
    expect(result.exitCode, result.all).toBe(0)
    const calls = claude.calls()
    expect(calls.filter((argv) => argv[0] === 'auth')).toEqual([['auth', 'status']])
    expect(calls.filter((argv) => argv.includes('-p'))).toHaveLength(1)
    await repo.cleanup()
  })
})
