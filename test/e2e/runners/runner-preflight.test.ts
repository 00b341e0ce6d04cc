import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import type {Plan} from '../../../src/plan/types.js'
import {preflightRunners} from '../../../src/runners/preflight-runners.js'
import {resolveRunner} from '../../../src/runners/resolve-runner.js'
import type {Runner} from '../../../src/runners/runner.js'
import {agentsDir, tempDir} from '../../helpers/runner-support.js'
import {runCli} from '../../helpers/run-cli.js'

function plan(runner: string, fields = '', agents = ['A']): Plan {
  const sections = agents
    .map((id) => `### ${id}: task ${id}\n- **depends_on**: []\n- **prompt**: |\n    Do ${id}.\n${fields}`)
    .join('\n')
  const rows = agents.map((id) => `| ${id} | pending | — | — | |`).join('\n')
  const source = `---\nrunner: ${runner}\n---\n\n# Parallel Plan: preflight\n\n## Agents\n\n${sections}\n## Execution State\n\n| Agent | Status | Agent ID | Duration | Notes |\n|-------|--------|----------|----------|-------|\n${rows}\n`
  return parsePlan(source, '/plans/plan.md')
}

function runnersOf(p: Plan): Map<string, Runner> {
  return new Map(p.agents.map((agent) => [agent.id, resolveRunner(p, agent)]))
}

/** A clean environment: the fake CLIs, an empty HOME, no keys from the machine running the tests. */
function env(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    MDPLAN_CLAUDE_BIN: join(agentsDir, 'claude'),
    MDPLAN_CODEX_BIN: join(agentsDir, 'codex'),
    MDPLAN_GEMINI_BIN: join(agentsDir, 'gemini'),
    MDPLAN_OPENCODE_BIN: join(agentsDir, 'opencode'),
    ...extra
  }
}

async function reasons(p: Plan, environment: NodeJS.ProcessEnv, cwd: string): Promise<string[]> {
  const diagnostics = await preflightRunners(p, runnersOf(p), environment, cwd)
  for (const diagnostic of diagnostics) expect(diagnostic.severity).toBe('error')
  return diagnostics.map((diagnostic) => `${diagnostic.rule}: ${diagnostic.reason}`)
}

describe('preflightRunners', () => {
  it('passes when every runner is logged in or keyed', async () => {
    const home = tempDir()
    for (const runner of ['claude', 'codex', 'opencode']) expect(await reasons(plan(runner), env(home), home)).toEqual([])
    expect(await reasons(plan('gemini'), env(home, {GEMINI_API_KEY: 'k'}), home)).toEqual([])
  })

  it('says claude is not logged in, and what to run or set (claude auth status: loggedIn false)', async () => {
    const home = tempDir()
    expect(await reasons(plan('claude', '', ['A', 'B']), env(home, {FAKE_AUTH: 'none'}), home)).toEqual([
      'runner-not-ready: agents A, B (claude runner): claude is not logged in (`claude auth status` says "loggedIn": false): run `claude auth login` (or `claude setup-token`), or set ANTHROPIC_API_KEY'
    ])
  })

  it('takes an API key in the environment for a login without asking claude', async () => {
    const home = tempDir()
    expect(await reasons(plan('claude'), env(home, {FAKE_AUTH: 'none', ANTHROPIC_API_KEY: 'sk-ant-x'}), home)).toEqual([])
  })

  it('refuses a permission mode the installed claude does not list, naming the ones it does', async () => {
    const home = tempDir()
    expect(await reasons(plan('claude', '- **permission_mode**: yolo\n'), env(home), home)).toEqual([
      'runner-not-ready: agent A (claude runner): claude does not accept the permission mode "yolo": use one of acceptEdits, auto, bypassPermissions, manual, dontAsk, plan (permission_mode in the front matter or the agent, or --permission-mode)'
    ])
    expect(await reasons(plan('claude', '- **permission_mode**: default\n'), env(home), home)).toEqual([])
  })

  it('refuses bypassPermissions as root (claude does), unless IS_SANDBOX=1', async () => {
    const home = tempDir()
    const bypass = plan('claude', '- **permission_mode**: bypassPermissions\n')
    const asRoot = process.getuid?.() === 0
    expect(await reasons(bypass, env(home), home)).toEqual(
      asRoot
        ? [
            'runner-not-ready: agent A (claude runner): claude refuses the permission mode "bypassPermissions" when running as root (`--dangerously-skip-permissions cannot be used with root/sudo privileges`): run mdplan as a normal user, choose acceptEdits, or set IS_SANDBOX=1 inside a sandbox'
          ]
        : []
    )
    expect(await reasons(bypass, env(home, {IS_SANDBOX: '1'}), home)).toEqual([])
  })

  it('says codex is not logged in (codex login status), unless CODEX_API_KEY is set', async () => {
    const home = tempDir()
    expect(await reasons(plan('codex'), env(home, {FAKE_AUTH: 'none'}), home)).toEqual([
      'runner-not-ready: agent A (codex runner): codex is not logged in (`codex login status` says Not logged in): run `codex login`, or `printenv OPENAI_API_KEY | codex login --with-api-key`, or set CODEX_API_KEY'
    ])
    expect(await reasons(plan('codex'), env(home, {FAKE_AUTH: 'none', CODEX_API_KEY: 'k'}), home)).toEqual([])
  })

  it('says gemini has no auth method, naming the variables, unless the settings or the environment choose one', async () => {
    const home = tempDir()
    const project = join(home, 'project')
    mkdirSync(project)
    const [only] = await reasons(plan('gemini'), env(home), project)
    expect(only).toContain('gemini has no auth method (it would exit 41): set GEMINI_API_KEY, or GOOGLE_GENAI_USE_VERTEXAI=true')
    expect(only).toContain(join(home, '.gemini', 'settings.json'))
    expect(await reasons(plan('gemini'), env(home, {GOOGLE_GENAI_USE_GCA: 'true'}), project)).toEqual([])
    expect(await reasons(plan('gemini'), env(home, {GOOGLE_GENAI_USE_VERTEXAI: 'true'}), project)).toEqual([
      'runner-not-ready: agent A (gemini runner): gemini uses Vertex AI but has no project: set GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION, or GOOGLE_API_KEY (express mode)'
    ])
    expect(await reasons(plan('gemini'), env(home, {GOOGLE_GENAI_USE_VERTEXAI: 'true', GOOGLE_API_KEY: 'k'}), project)).toEqual([])
    mkdirSync(join(home, '.gemini'))
    writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify({security: {auth: {selectedType: 'oauth-personal'}}}))
    expect(await reasons(plan('gemini'), env(home), project)).toEqual([])
  })

  it('counts a .env gemini would load', async () => {
    const home = tempDir()
    writeFileSync(join(home, '.env'), 'export GEMINI_API_KEY=abc\n')
    expect(await reasons(plan('gemini'), env(home), home)).toEqual([])
  })

  it('says opencode has no provider (opencode auth list: 0 credentials), unless a key, a variable or a config names one', async () => {
    const home = tempDir()
    const none = 'runner-not-ready: agent A (opencode runner): opencode has no provider (`opencode auth list` shows 0 credentials and no provider variable, and no opencode.json configures one): run `opencode auth login`, or set a provider key such as ANTHROPIC_API_KEY or OPENAI_API_KEY, or configure a provider in opencode.json'
    expect(await reasons(plan('opencode'), env(home, {FAKE_AUTH: 'none'}), home)).toEqual([none])
    expect(await reasons(plan('opencode'), env(home, {FAKE_AUTH: 'none', OPENAI_API_KEY: 'k'}), home)).toEqual([])
    const project = tempDir()
    writeFileSync(join(project, 'opencode.json'), JSON.stringify({provider: {local: {options: {baseURL: 'http://127.0.0.1:1/v1'}}}}))
    expect(await reasons(plan('opencode'), env(home, {FAKE_AUTH: 'none'}), join(project))).toEqual([])
    mkdirSync(join(home, '.config', 'opencode'), {recursive: true})
    writeFileSync(join(home, '.config', 'opencode', 'opencode.json'), '{\n  // jsonc\n  "provider": {}\n}\n')
    expect(await reasons(plan('opencode'), env(home, {FAKE_AUTH: 'none'}), home)).toEqual([])
  })

  // The real opencode's `auth list` took over 20 s on a loaded machine; with the 20 s limit of the other
  // status commands the run went on to launch opencode with no provider (npm run test:clis, 3 of 100 failed).
  it('waits for an opencode that answers `auth list` after more than 20 s, and still says it has no provider', async () => {
    const home = tempDir()
    const found = await reasons(plan('opencode'), env(home, {FAKE_AUTH: 'none', FAKE_AUTH_DELAY_MS: '21000'}), home)
    expect(found).toEqual([expect.stringMatching(/^runner-not-ready: agent A \(opencode runner\): opencode has no provider /)])
  }, 90_000)

  it('mdplan run with opencode and no provider: exit 2, one line with the fix, nothing launched, the plan untouched', async () => {
    const home = tempDir()
    const argvLog = join(home, 'argv.log')
    const text = `---\nrunner: opencode\n---\n\n# Parallel Plan: p\n\n## Agents\n\n### A: a\n- **depends_on**: []\n- **prompt**: |\n    Do A.\n`
    writeFileSync(join(home, 'plan.md'), text)
    const run = await runCli(['run', 'plan.md'], {cwd: home, env: env(home, {FAKE_AUTH: 'none', FAKE_ARGV_LOG: argvLog}) as Record<string, string>})
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toMatch(/plan\.md:2:1: agent A \(opencode runner\): opencode has no provider .*run `opencode auth login`.* \[runner-not-ready\]$/m)
    expect(existsSync(argvLog)).toBe(false)
    expect(readFileSync(join(home, 'plan.md'), 'utf8')).toBe(text)
  })

  // A login check that did not answer in time used to count as passed (claude's and codex's after 20 s,
  // opencode's after 120 s): the run launched a CLI whose login nobody had confirmed. The limit is shortened
  // for the test (MDPLAN_LOGIN_CHECK_TIMEOUT_MS); the fake answers "logged in", but too late: after a minute, far
  // from the limit on both sides (an answer at 8 s against a bound of 7 s left a loaded machine's start of mdplan
  // and of the fake CLI less than 6 s).
  for (const [runner, command, instead] of [
    ['claude', 'claude auth status', 'set ANTHROPIC_API_KEY'],
    ['codex', 'codex login status', 'set CODEX_API_KEY'],
    ['opencode', 'opencode auth list', 'configure a provider in opencode.json']
  ] as const) {
    it(`mdplan run whose \`${command}\` does not answer within the limit: exit 2, one line naming the command, the limit and what to do, nothing launched, the plan byte-identical`, async () => {
      const home = tempDir()
      const argvLog = join(home, 'argv.log')
      const text = `---\nrunner: ${runner}\n---\n\n# Parallel Plan: p\n\n## Agents\n\n### A: a\n- **depends_on**: []\n- **prompt**: |\n    Do A.\n`
      writeFileSync(join(home, 'plan.md'), text)
      const started = Date.now()
      const run = await runCli(['run', 'plan.md'], {cwd: home, env: env(home, {FAKE_AUTH_DELAY_MS: '60000', MDPLAN_LOGIN_CHECK_TIMEOUT_MS: '1500', FAKE_ARGV_LOG: argvLog}) as Record<string, string>})
      expect(run.exitCode, run.all).toBe(2)
      const lines = run.stderr.split('\n').filter((line) => line.includes('could not be confirmed'))
      expect(lines).toHaveLength(1)
      expect(lines[0]).toContain(`plan.md:2:1: agent A (${runner} runner): `)
      expect(lines[0]).toContain(`\`${command}\` did not answer within 2s, so nothing was launched: run \`${command}\` yourself`)
      expect(lines[0]).toContain(instead)
      expect(lines[0]).toMatch(/\[runner-not-ready\]$/)
      // Stopped at the limit, not when the fake finally answered.
      expect(Date.now() - started).toBeLessThan(20_000)
      expect(existsSync(argvLog)).toBe(false)
      expect(readFileSync(join(home, 'plan.md'), 'utf8')).toBe(text)
    }, 30_000)
  }

  it('reports a missing CLI once and asks it nothing more', async () => {
    const home = tempDir()
    expect(await reasons(plan('claude'), env(home, {MDPLAN_CLAUDE_BIN: join(home, 'no-such-claude')}), home)).toEqual([
      `runner-not-installed: agent A uses the claude runner, but \`${join(home, 'no-such-claude')}\` (from MDPLAN_CLAUDE_BIN) is not installed: npm install -g @anthropic-ai/claude-code`
    ])
  })
})
