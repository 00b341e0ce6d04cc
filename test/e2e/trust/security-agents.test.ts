import {execFileSync} from 'node:child_process'
import {chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {bin, readTable, root, runCli, setupPlan, shellPlan} from '../../helpers/run-cli.js'

const claude = join(root, 'fixtures', 'agents', 'claude')

/** Prompts and IDs with everything a shell would act on. */
const hostile = [
  'Fix the bug. $(touch pwned) and `touch pwned2`; rm -rf victim && touch pwned3',
  "Quotes: 'single' \"double\" \\\"escaped\\\" $HOME ${PATH} | cat /etc/passwd > leaked",
  '-- --allowedTools Bash --dangerously-skip-permissions',
  'A trailing backslash \\'
].join('\n')

/** A plan whose agents' prompts are the hostile text (as an indented block: verbatim). */
function hostilePlan(frontMatter = ''): string {
  const prompt = hostile
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n')
  return [
    '---',
    ...(frontMatter ? [frontMatter] : []),
    '---',
    '',
    '# Parallel Plan: hostile prompts',
    '',
    '## Agents',
    '',
    '### A: first',
    '- **depends_on**: []',
    '- **prompt**: |',
    prompt,
    '',
    '### B: second',
    '- **depends_on**: [A]',
    '- **prompt**: |',
    prompt,
    '',
    '## Execution State',
    '',
    '| Agent | Status | Agent ID | Duration | Notes |',
    '|-------|--------|----------|----------|-------|',
    // A hand-edited session ID that a shell would run, for the resume path.
    '| A | in_progress | $(touch pwned4)`touch pwned5` | — | |',
    '| B | pending | — | — | |',
    ''
  ].join('\n')
}

function expectNothingInjected(dir: string): void {
  for (const file of ['pwned', 'pwned2', 'pwned3', 'pwned4', 'pwned5', 'leaked']) expect(existsSync(join(dir, file)), file).toBe(false)
  expect(existsSync(join(dir, 'victim', 'keep'))).toBe(true)
}

function allFiles(dir: string): string[] {
  const out: string[] = []
  for (const entry of readdirSync(dir, {withFileTypes: true})) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(path, ...allFiles(path))
    else out.push(path)
  }
  return out
}

describe('prompts and IDs never reach a shell', () => {
  it('claude runner: the plan’s prompt arrives byte for byte as one argv element, a hostile session ID as another', async () => {
    const {dir, plan} = await setupPlan({text: hostilePlan()})
    mkdirSync(join(dir, 'victim'))
    execFileSync('touch', [join(dir, 'victim', 'keep')])
    const argvLog = join(dir, 'argv.log')
    const result = await runCli(['run', plan, '--runner', 'claude'], {
      cwd: dir,
      env: {MDPLAN_CLAUDE_BIN: claude, FAKE_ARGV_LOG: argvLog, FAKE_STATE_DIR: join(dir, 'state'), FAKE_RESULT_TEXT: 'Done.\n\nRESULT: SUCCESS'}
    })
    expect(result.exitCode, result.all).toBe(0)
    const calls = readFileSync(argvLog, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as {argv: string[]})
    // A's hostile session ID was tried as a resume (one argv element), refused, then A started afresh; then B.
    expect(calls.length).toBeGreaterThanOrEqual(3)
    const resume = calls.find((call) => call.argv.includes('-r'))!
    expect(resume.argv[resume.argv.indexOf('-r') + 1]).toBe('$(touch pwned4)`touch pwned5`')
    for (const call of calls) expect(call.argv.at(-2)).toBe('--')
    const fresh = calls.filter((call) => !call.argv.includes('-r'))
    expect(fresh).toHaveLength(2)
    // The assembled prompt wraps the plan's prompt; the plan's text is in it unchanged.
    for (const call of fresh) expect(call.argv.at(-1)).toContain(hostile)
    expectNothingInjected(dir)
    const {rows} = await readTable(plan)
    expect(rows.A!.status).toBe('completed')
    expect(rows.A!.agentId).toMatch(/^[0-9a-f-]{36}$/)
  })

  it.each(['codex', 'gemini', 'opencode'])('%s: the hostile prompt arrives whole in one argv element and a hostile table ID runs nothing', async (runner) => {
    const {dir, plan} = await setupPlan({text: hostilePlan()})
    mkdirSync(join(dir, 'victim'))
    execFileSync('touch', [join(dir, 'victim', 'keep')])
    const argvLog = join(dir, 'argv.log')
    const result = await runCli(['run', plan, '--runner', runner], {
      cwd: dir,
      env: {
        [`MDPLAN_${runner.toUpperCase()}_BIN`]: join(root, 'fixtures', 'agents', runner),
        FAKE_ARGV_LOG: argvLog,
        FAKE_STATE_DIR: join(dir, 'state'),
        FAKE_RESULT_TEXT: 'Done.\n\nRESULT: SUCCESS',
        // gemini's preflight wants an auth method; the fake ignores the key.
        GEMINI_API_KEY: 'unused-by-the-fake'
      }
    })
    expect(result.exitCode, result.all).toBe(0)
    const calls = readFileSync(argvLog, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as {argv: string[]})
    // Every launch with the plan's prompt carries it as exactly one argv element.
    const withPrompt = calls.filter((call) => call.argv.some((arg) => arg.includes(hostile)))
    expect(withPrompt.length).toBeGreaterThanOrEqual(2)
    for (const call of withPrompt) expect(call.argv.filter((arg) => arg.includes('touch pwned'))).toHaveLength(1)
    // The hostile ID from the table, if used to resume, is one argv element too.
    for (const call of calls) for (const arg of call.argv) if (arg.includes('pwned4')) expect(arg).toBe('$(touch pwned4)`touch pwned5`')
    expectNothingInjected(dir)
  })

  it('command template with a shell (`sh -c`): placeholders become quoted variables, never spliced script', async () => {
    const {dir, plan} = await setupPlan({text: hostilePlan().replace('| A | in_progress | $(touch pwned4)`touch pwned5` | — | |', '| A | pending | — | — | |')})
    mkdirSync(join(dir, 'victim'))
    execFileSync('touch', [join(dir, 'victim', 'keep')])
    const result = await runCli(['run', plan, '--runner', `sh -c 'printf "%s" {prompt} > "got-$MDPLAN_AGENT.txt"; echo "RESULT: SUCCESS"'`], {cwd: dir})
    expect(result.exitCode, result.all).toBe(0)
    for (const id of ['A', 'B']) expect(readFileSync(join(dir, `got-${id}.txt`), 'utf8')).toContain(hostile)
    expectNothingInjected(dir)
  })
})

describe('paths outside the repository', () => {
  it('validate flags `../`, absolute, home and drive paths in creates, modifies and deletes, each at its position', async () => {
    const lines = [
        '# Parallel Plan: escapes',
        '',
        '## Agents',
        '',
        '### A: escapes',
        '- **creates**: [`../x`, `src/ok.ts`, `./src/also-ok.ts`]',
        '- **modifies**: [`/etc/passwd`, `src/../../up.ts`, `src/..ok/fine.ts`]',
        '- **deletes**: [`~/.ssh/id_rsa`, `C:\\Windows\\win.ini`, `..\\evil.txt`]',
        '- **prompt**: |',
        '    A.',
        ''
      ]
    const {dir, plan} = await setupPlan({text: lines.join('\n')})
    /** `line:column` of a path's first character (inside its backticks). */
    const at = (path: string): string[] => {
      const line = lines.findIndex((text) => text.includes(`\`${path}\``))
      return [String(line + 1), String(lines[line]!.indexOf(`\`${path}\``) + 2)]
    }
    const result = await runCli(['validate', plan], {cwd: dir})
    expect(result.exitCode).toBe(2)
    const flagged = result.stdout
      .split('\n')
      .filter((line) => line.includes('[path-outside-repo]'))
      .map((line) => /plan\.md:(\d+):(\d+): `([^`]+)` in `(\w+)`/.exec(line)!.slice(1))
    expect(flagged).toEqual([
      [...at('../x'), '../x', 'creates'],
      [...at('/etc/passwd'), '/etc/passwd', 'modifies'],
      [...at('src/../../up.ts'), 'src/../../up.ts', 'modifies'],
      [...at('~/.ssh/id_rsa'), '~/.ssh/id_rsa', 'deletes'],
      [...at('C:\\Windows\\win.ini'), 'C:\\Windows\\win.ini', 'deletes'],
      [...at('..\\evil.txt'), '..\\evil.txt', 'deletes']
    ])
    // And `run` refuses the plan without touching it.
    const before = readFileSync(plan, 'utf8')
    expect((await runCli(['run', plan], {cwd: dir})).exitCode).toBe(2)
    expect(readFileSync(plan, 'utf8')).toBe(before)
  })
})

describe('logs', () => {
  it('are created with the user’s umask, keep the plan’s own mode, and never hold environment secrets', async () => {
    const secrets = {ANTHROPIC_API_KEY: 'sk-ant-secret-0123456789', OPENAI_API_KEY: 'sk-openai-secret-9876', GITHUB_TOKEN: 'ghp_secretsecret42'}
    const {dir, plan} = await setupPlan({
      text: shellPlan({
        A: {script: 'echo "working on it"\necho "RESULT: SUCCESS"'},
        B: {deps: ['A'], script: 'echo "this fails" >&2\nexit 3'},
        C: {script: 'echo "$MDPLAN_AGENT done"'}
      })
    })
    chmodSync(plan, 0o600)
    const shellRun = `umask 027 && exec "${process.execPath}" "${bin}" run "${plan}" --max-attempts 2`
    let exitCode = 0
    try {
      execFileSync('sh', ['-c', shellRun], {cwd: dir, env: {...process.env, ...secrets, NO_COLOR: '1'}, stdio: 'pipe'})
    } catch (error) {
      exitCode = (error as {status: number}).status
    }
    expect(exitCode).toBe(1)
    const files = allFiles(join(dir, '.mdplan'))
    const logs = files.filter((file) => file.endsWith('.log'))
    expect(logs.map((file) => file.slice(dir.length))).toEqual(expect.arrayContaining(['/.mdplan/logs/plan/A.1.log', '/.mdplan/logs/plan/B.1.log', '/.mdplan/logs/plan/B.2.log']))
    for (const file of files) {
      const mode = statSync(file).mode & 0o777
      if (statSync(file).isDirectory()) expect(mode, file).toBe(0o750)
      else expect(mode, file).toBe(0o640)
    }
    expect(statSync(plan).mode & 0o777).toBe(0o600)
    for (const file of [plan, ...files.filter((f) => statSync(f).isFile())]) {
      const text = readFileSync(file, 'utf8')
      for (const secret of Object.values(secrets)) expect(text.includes(secret), `${secret} in ${file}`).toBe(false)
    }
  })
})
