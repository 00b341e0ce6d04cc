// `node bin/mdplan.js …` in a test repository, asynchronously (the model server
// answers in this same process), and the helpers the scenarios read it with.
import {spawn, spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const mdplanBin = join(root, 'bin', 'mdplan.js')

/** A fresh `git init` repository with one commit, git's global config left out. */
export function gitRepo(prefix = 'mdplan-clis-repo-') {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const git = (...args) => spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], {cwd: dir, encoding: 'utf8'})
  git('init', '-q')
  // Unique content: identical first commits would give every test repository the same root commit, which
  // opencode takes for one project (it keeps a project's folder by its root commit).
  writeFileSync(join(dir, 'README.md'), `# scratch ${dir}\n`)
  git('add', '.')
  git('commit', '-q', '-m', 'init')
  return {dir, git: (...args) => git(...args).stdout}
}

/**
 * Starts `mdplan <args>`; `done` resolves with {code, signal, output}. `timeoutMs` bounds a run that hangs, not
 * its speed: a run it ends says so in its output. (It was 240 s, and on CI's slower machine a 3-level opencode
 * DAG, with its neighbours side by side, needed more: every such run was cut, and 17 checks failed.)
 */
export function startMdplan(args, {cwd, env, timeoutMs = 900_000}) {
  const child = spawn(process.execPath, [mdplanBin, ...args], {cwd, env: {...cleanEnv(), ...env}, stdio: ['ignore', 'pipe', 'pipe']})
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const timer = setTimeout(() => {
    output += `\n[test:clis] mdplan ${args[0]} ended by the harness after ${timeoutMs / 1000} s (the bound for a hung run)\n`
    child.kill('SIGKILL')
  }, timeoutMs)
  const done = new Promise((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({code, signal, output})
    })
  )
  return {child, done}
}

export function mdplan(args, options) {
  return startMdplan(args, options).done
}

/** The environment without anything that could reach the user's own agents, keys or git config. */
export function cleanEnv() {
  const skip = /^(ANTHROPIC_|CLAUDE_|OPENAI_|CODEX_|GEMINI_|GOOGLE_|OPENCODE_|XDG_|MDPLAN_|AWS_|AZURE_|IS_SANDBOX$|GIT_)/
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !skip.test(name)))
  return {...env, TERM: 'dumb', NO_COLOR: '1', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null'}
}

/** The state table's cells for one agent: {status, id, duration, notes}. */
export function row(planFile, agent) {
  const line = readFileSync(planFile, 'utf8').split('\n').find((text) => text.startsWith(`| ${agent} |`)) ?? ''
  const [, , status = '', id = '', duration = '', notes = ''] = line.split('|').map((cell) => cell.trim())
  return {status, id, duration, notes, line}
}

/**
 * A plan: `agents` is [{id, name, deps, creates, modifies, prompt, fields}].
 * Each prompt should carry the `mdplan-script:NAME` marker the model server plays by.
 */
export function planText({title, front, agents}) {
  const head = Object.entries(front).map(([key, value]) => `${key}: ${value}`)
  const list = (paths) => `[${paths.map((path) => `\`${path}\``).join(', ')}]`
  const sections = agents.map((agent) =>
    [
      `### ${agent.id}: ${agent.name ?? agent.id.toLowerCase()}`,
      `- **depends_on**: [${(agent.deps ?? []).join(', ')}]`,
      ...(agent.creates ? [`- **creates**: ${list(agent.creates)}`] : []),
      ...(agent.modifies ? [`- **modifies**: ${list(agent.modifies)}`] : []),
      ...Object.entries(agent.fields ?? {}).map(([key, value]) => `- **${key}**: ${value}`),
      '- **prompt**: |',
      ...agent.prompt.split('\n').map((line) => `    ${line}`),
      ''
    ].join('\n')
  )
  const rows = agents.map((agent) => `| ${agent.id} | pending | — | — | |`)
  return `---\n${head.join('\n')}\n---\n\n# Parallel Plan: ${title}\n\n## Agents\n\n${sections.join('\n')}\n## Execution State\n\n| Agent | Status | Agent ID | Duration | Notes |\n|-------|--------|----------|----------|-------|\n${rows.join('\n')}\n`
}
