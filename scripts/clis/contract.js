// Contract checks against the REAL agent CLIs (run by scripts/test-clis.js; not part of npm test).
//
// With the clients scripts/test-clis.js installed, and with no credentials
// (HOME a temp folder, every auth variable removed) and no model network:
//   1. each runner's argv, fresh and on resume, and a ~300 KiB prompt (stdin),
//      is accepted: the CLI does not answer with a usage error;
//   2. `mdplan run` stops before launching when a CLI is not logged in or keyed
//      (or a permission mode is refused): exit 2, the message says what to run
//      or set, the plan file untouched;
//   3. a configuration error the preflight cannot see (opencode, unknown model)
//      fails the agent once: no second attempt;
//   4. nothing hangs: every step ends within its own time limit.
// One line per check; exit 0 when every check passed.
import {spawnSync} from 'node:child_process'
import {randomUUID} from 'node:crypto'
import {existsSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {opencodeOffline} from './client-env.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
// The parent (scripts/test-clis.js) installs the clients and names their folders: MDPLAN_CLIS_BINS is
// {client: folder of its executable}; the clients to check are the arguments.
const bins = JSON.parse(process.env.MDPLAN_CLIS_BINS || '{}')
const clients = process.argv.slice(2).filter((name) => name in bins)
if (!existsSync(join(root, 'dist', 'runners', 'claude', 'claude.js'))) {
  console.error('dist/ is missing: run `npm run build` first (npm run test:clis does)')
  process.exit(1)
}

// ---- no credentials: a temp HOME, no auth variables, the cache's clients first on PATH
const home = mkdtempSync(join(tmpdir(), 'mdplan-clis-home-'))
const authVariables = /^(ANTHROPIC_|CLAUDE_CODE_|CLAUDE_CONFIG_DIR$|OPENAI_|CODEX_|GEMINI_|GOOGLE_|CLOUD_SHELL$|OPENCODE_|XDG_|MDPLAN_|AWS_|AZURE_|IS_SANDBOX$)/
for (const name of Object.keys(process.env)) if (authVariables.test(name)) delete process.env[name]
process.env.HOME = home
process.env.PATH = [...clients.map((name) => bins[name]), dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':')
process.env.TERM = 'dumb'
// Set after the sweep above took every OPENCODE_ variable: on CI every opencode start here waited past its minute.
Object.assign(process.env, opencodeOffline)

const {claudeRunner} = await import('../../dist/runners/claude/claude.js')
const {codexRunner} = await import('../../dist/runners/codex/codex.js')
const {geminiRunner} = await import('../../dist/runners/gemini/gemini.js')
const {opencodeRunner} = await import('../../dist/runners/opencode/opencode.js')
const runners = {claude: claudeRunner, codex: codexRunner, gemini: geminiRunner, opencode: opencodeRunner}

const results = []
const check = (client, name, passed, detail) => {
  results.push({client, name, passed})
  // A tab ends the name: names hold colons, and scripts/test-clis.js reads the name back.
  console.log(`${passed ? 'PASS' : 'FAIL'}  ${client.padEnd(8)} ${name}${detail ? `\t${String(detail).replace(/\s+/g, ' ')}` : ''}`)
}

function gitRepo() {
  const dir = mkdtempSync(join(tmpdir(), 'mdplan-clis-repo-'))
  spawnSync('git', ['init', '-q'], {cwd: dir})
  spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'init'], {cwd: dir})
  return dir
}

const usageError = /unexpected argument|unknown option|Unknown argument|Not enough arguments|is invalid\. Allowed choices|too many arguments|requires --verbose|argument list too long|E2BIG/i

// ---- 1. argv accepted, fresh, on resume, and with a large prompt
const large = `Reply with OK.\n${'// filler line for a large prompt, kept as data\n'.repeat(6400)}`
for (const client of clients) {
  const runner = runners[client]
  const cwd = gitRepo()
  const base = (name, prompt, extra = {}) => ({
    agent: {id: 'A', name: 'contract', position: undefined, section: undefined, dependsOn: [], softDependsOn: [], creates: [], modifies: [], deletes: [], fields: {}},
    prompt,
    cwd,
    planFile: join(cwd, 'plan.md'),
    attempt: 1,
    logFile: join(cwd, '.mdplan', 'logs', `${name}.log`),
    // opencode's default model needs no login and would wait a minute for the network: name one it lacks.
    options: client === 'opencode' ? {model: 'nope/nope'} : {},
    // Bounds for a hang, not speed targets. opencode's first start in a new HOME takes about 13 s on a quiet
    // 2-core machine; on CI, beside four opencode scenarios, it passed a minute (the check then read a timeout).
    timeoutMs: client === 'opencode' ? 240_000 : 60_000,
    ...extra
  })
  // The whole output (stderr included) is in the attempt's log: a usage error anywhere there fails.
  const accepted = (result, name) => {
    const log = readFileSync(join(cwd, '.mdplan', 'logs', `${name}.log`), 'utf8')
    return !result.spawnFailed && !usageError.test(`${result.reason ?? ''}\n${log}`)
  }
  const fresh = await runner.run(base('fresh', 'Reply with OK.'))
  check(client, 'argv accepted (fresh)', accepted(fresh, 'fresh'), fresh.reason)
  const resumeId = fresh.agentId ?? (client === 'opencode' ? 'ses_contract' : randomUUID())
  const resumed = await runner.run(base('resume', 'Continue.', {resume: {sessionId: resumeId}}))
  check(client, 'argv accepted (resume)', accepted(resumed, 'resume'), resumed.reason)
  const big = await runner.run(base('large', large))
  check(client, `argv accepted (${Math.round(Buffer.byteLength(large) / 1024)} KiB prompt on stdin)`, accepted(big, 'large'), big.reason)
}

// ---- 2-4. mdplan itself
function plan(runner, fields = '', maxAttempts = 2) {
  return `---\nrunner: ${runner}\nconcurrency: 1\nmax_attempts: ${maxAttempts}\n---\n\n# Parallel Plan: contract\n\n## Agents\n\n### A: hello\n- **depends_on**: []\n- **creates**: [\`hello.txt\`]\n${fields}- **prompt**: |\n    Create hello.txt containing the word hi.\n\n## Execution State\n\n| Agent | Status | Agent ID | Duration | Notes |\n|-------|--------|----------|----------|-------|\n| A | pending | — | — | |\n`
}

function mdplan(text, extraEnv = {}, limitMs = 900_000) {
  const cwd = gitRepo()
  const file = join(cwd, 'plan.md')
  writeFileSync(file, text)
  const started = Date.now()
  const run = spawnSync(process.execPath, [join(root, 'bin', 'mdplan.js'), 'run', 'plan.md', '--agent-timeout', '240s'], {
    cwd,
    env: {...process.env, ...extraEnv},
    encoding: 'utf8',
    timeout: limitMs,
    killSignal: 'SIGKILL'
  })
  return {status: run.status, hung: run.error !== undefined || run.signal !== null, output: `${run.stdout}${run.stderr}`, after: readFileSync(file, 'utf8'), before: text, seconds: Math.round((Date.now() - started) / 1000)}
}

const preflight = {
  claude: [plan('claude'), {}, /claude is not logged in .*claude auth login.*ANTHROPIC_API_KEY/],
  codex: [plan('codex'), {}, /codex is not logged in .*codex login.*CODEX_API_KEY/],
  gemini: [plan('gemini'), {}, /gemini has no auth method .*GEMINI_API_KEY/],
  // With no provider opencode would fall back to its hosted model and wait on the network.
  opencode: [plan('opencode'), {}, /opencode has no provider .*opencode auth login/]
}
for (const client of clients.filter((name) => name in preflight)) {
  const [text, env, message] = preflight[client]
  const run = mdplan(text, env)
  check(client, 'preflight: no hang', !run.hung, `${run.seconds}s`)
  check(client, 'preflight: exit 2', run.status === 2, `exit ${run.status}`)
  check(client, 'preflight: says what to run or set', message.test(run.output.replace(/\s+/g, ' ')), firstLine(run.output))
  check(client, 'preflight: plan file untouched (nothing launched, no attempt burnt)', run.after === run.before)
}
if (clients.includes('claude')) {
  // Keyed (a dummy key: the preflight only reads it), with a mode 2.1.330 rejects.
  const run = mdplan(plan('claude', '- **permission_mode**: yolo\n'), {ANTHROPIC_API_KEY: 'sk-ant-contract-dummy'})
  check('claude', 'preflight: refused permission mode, exit 2', run.status === 2 && /does not accept the permission mode "yolo"/.test(run.output), firstLine(run.output))
}
if (clients.includes('opencode')) {
  // A dummy provider key gets past the preflight (which only sees that a provider is configured).
  const run = mdplan(plan('opencode', '- **model**: nope/nope\n'), {OPENAI_API_KEY: 'sk-contract-dummy'})
  check('opencode', 'configuration error: no hang', !run.hung, `${run.seconds}s`)
  const row = run.after.split('\n').find((line) => line.startsWith('| A |')) ?? ''
  check('opencode', 'configuration error: failed once, not retried', /\bfailed\b/.test(row) && /attempt 1/.test(row) && !/attempt 2/.test(row), row)
  check('opencode', 'configuration error: the real cause in the note', /ProviderModelNotFoundError/.test(row), row)
}

function firstLine(text) {
  return (text.split('\n').find((line) => line.trim() !== '') ?? '').slice(0, 200)
}

process.exit(results.every((result) => result.passed) ? 0 : 1)
