#!/usr/bin/env node
// Sort the test files into the two tiers of vitest.config.ts, and say where each one belongs:
//
//   unit  test/unit/<src folder>/   in process only: no CLI spawned, no dist/, no sshd, podman, Slurm or fake CLIs
//   e2e   test/e2e/<theme>/         everything else: bin/mdplan.js spawned, real repositories with runs, hosts
//
// node scripts/classify-tests.js            one line per test file: tier, where it belongs, where it is, why
// node scripts/classify-tests.js --moves    only the files not where they belong, as `git mv` lines
// node scripts/classify-tests.js --check    exit 1 if a file under test/unit/ shows a sign of an e2e test
//
// The signs are read from the source (imports and a few strings), so this is a first sort: a file marked
// `?` (borderline: it starts child processes, real git repositories or whole runs in process) was read by
// hand, and the verdict kept in `decided` below.
import {readdirSync, readFileSync} from 'node:fs'
import {basename, join, relative} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const testDir = join(root, 'test')

/** Signs that a test is an e2e test: any one of them is enough. */
const e2eSigns = {
  cli: /\b(runCli|startCli)\b|import \{[^}]*\bbin\b[^}]*\} from '[./]+helpers\/run-cli\.js'|bin\/mdplan|'bin', 'mdplan\.js'/,
  'live-run': /helpers\/live-run\.js/,
  sshd: /helpers\/sshd(-suite)?\.js/,
  dist: /['"`/]dist['"`/]/,
  packed: /helpers\/packed\.js/,
  'fake-host': /helpers\/fake-(k8s|slurm|engine)|\bpodman\b/
}

/** Signs of a borderline test: read it, and record the verdict in `decided`. */
const borderSigns = {
  spawn: /node:child_process|from 'execa'/,
  'fake-cli': /\bagentsDir\b|fixtures\/agents/,
  'git-repo': /helpers\/git-repo\.js/,
  'whole-run': /run\/run-plan\.js/
}

/**
 * The borderline files, read by hand. unit: the child processes are trivial (git in a temp repository,
 * `sh -c` of a script under test, a node -e writer) and the file runs in a few seconds;
 * e2e: it starts agents, fake CLIs, tmux or many processes, or waits on them for a long time.
 */
const decided = {
  // Fake agent CLIs (fixtures/agents) started by the runner under test, or whole runs in process.
  answer: 'e2e',
  'answer-e2e': 'e2e',
  'hosts-types': 'e2e',
  'run-start-reads': 'e2e',
  'runner-claude': 'e2e',
  'runner-claude-real-lines': 'e2e',
  'runner-codex': 'e2e',
  'runner-gemini': 'e2e',
  'runner-opencode': 'e2e',
  'runner-opencode-real-lines': 'e2e',
  'runner-stuck-and-large': 'e2e',
  // A real terminal (tmux) drawing a live run; the soak (bench/soak.js runs the built CLI); many racing writers.
  'progress-tty': 'e2e',
  'stress-soak': 'e2e',
  'store-concurrent': 'e2e',
  // dependency-cruiser over all of src/: a project check, beside docs-examples and package-contents.
  'house-rules': 'e2e',
  // git in a temp repository, called in process by the module under test, and no run.
  'git-commit': 'unit',
  'git-scope': 'unit',
  'git-snapshot-status': 'unit',
  'git-worktree': 'unit',
  'hosts-fetch-result': 'unit',
  'runner-remote-auth': 'unit',
  // `sh -c` of the script under test.
  'hosts-preflight-script': 'unit',
  // A node -e writer or lock holder or two, for a few seconds.
  'store-atomic': 'unit',
  'store-conflict-markers': 'unit',
  'store-lock': 'unit',
  'store-save-in-rename-window': 'unit',
  'store-write-mutex': 'unit'
}

/** Unit tests whose main subject is not where their imports point (they drive it through a helper, or test a command). */
const folderOf = {
  'executor-model': 'executor',
  'finish-run-clock': 'run',
  'graph-command': 'cli',
  'hosts-model': 'hosts'
}

/** A test file's first word, when it names a src/ folder. */
const prefixFolders = {
  actionable: 'protocol',
  answer: 'protocol',
  arm: 'executor',
  attempt: 'executor',
  diff: 'diff',
  executor: 'executor',
  git: 'git',
  graph: 'report',
  history: 'history',
  host: 'hosts',
  hosts: 'hosts',
  import: 'import',
  init: 'init',
  log: 'layout',
  merge: 'merge',
  nested: 'nested',
  plan: 'plan',
  progress: 'report',
  protocol: 'protocol',
  registry: 'layout',
  report: 'report',
  run: 'run',
  runner: 'runners',
  schedule: 'schedule',
  store: 'store',
  template: 'runners',
  util: 'util',
  validate: 'cli'
}

/** Themes for e2e files, by first word (and a few whole names). */
const e2eThemes = {
  'agent-heading': 'cli',
  'disk-trouble': 'run',
  'fuzz-run': 'run',
  'open-question-fences': 'run',
  'progress-tty': 'cli',
  history: 'cli',
  answer: 'run',
  e2e: 'run',
  run: 'run',
  registry: 'run',
  nested: 'run',
  stress: 'run',
  local: 'hosts',
  hosts: 'hosts',
  host: 'hosts',
  trust: 'trust',
  security: 'trust',
  symlink: 'trust',
  store: 'store',
  git: 'git',
  merge: 'git',
  runner: 'runners',
  template: 'runners',
  paste: 'runners',
  init: 'cli',
  import: 'cli',
  report: 'cli',
  rerun: 'cli',
  cli: 'cli',
  diff: 'cli',
  'dry-run': 'cli',
  'first-run': 'cli',
  'docs-examples': 'project',
  'house-rules': 'project',
  'package-contents': 'project'
}

function testFiles(dir) {
  return readdirSync(dir, {withFileTypes: true}).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'helpers' ? [] : testFiles(path)
    return entry.name.endsWith('.test.ts') ? [path] : []
  })
}

/** The src/ modules a test imports (statically, dynamically or as a type), in order. */
function srcImports(text) {
  return [...text.matchAll(/(?:from |import\()'(?:\.\.\/)+src\/([^']+)'/g)].map((match) => match[1])
}

/** The src/ folder of the main thing under test. */
function srcFolder(name, text) {
  if (folderOf[name]) return folderOf[name]
  const imports = srcImports(text)
  const folders = imports.map((module) => (module.includes('/') ? module.split('/')[0] : ''))
  const word = name.split('-')[0]
  const named = prefixFolders[word]
  if (named && (folders.includes(named) || folders.length === 0)) return named
  // The test named after a module: that module's folder.
  const same = imports.find((module) => basename(module, '.js') === name)
  if (same) return same.includes('/') ? same.split('/')[0] : ''
  // Else the folder imported most (parse-plan is how most tests set up, so plan/ counts last), the first on a tie.
  const counts = new Map()
  for (const folder of folders) counts.set(folder, (counts.get(folder) ?? 0) + (folder === 'plan' ? 0.5 : 1))
  let best = named ?? ''
  let most = 0
  for (const [folder, count] of counts)
    if (count > most) {
      best = folder
      most = count
    }
  return best
}

function e2eTheme(name, text) {
  const whole = Object.keys(e2eThemes).find((key) => key.includes('-') && name.startsWith(key))
  if (whole) return e2eThemes[whole]
  const word = name.split('-')[0]
  return e2eThemes[word] ?? (srcFolder(name, text) || 'cli')
}

function classify(path) {
  const text = readFileSync(path, 'utf8')
  const name = basename(path, '.test.ts')
  const e2e = Object.entries(e2eSigns).filter(([, sign]) => sign.test(text)).map(([sign]) => sign)
  const border = Object.entries(borderSigns).filter(([, sign]) => sign.test(text)).map(([sign]) => sign)
  const verdict = e2e.length > 0 ? 'e2e' : (decided[name] ?? (border.length > 0 ? '?' : 'unit'))
  // Not read yet: fake CLIs and whole runs make it e2e, else unit until read.
  const tier = verdict === '?' ? (border.includes('fake-cli') || border.includes('whole-run') ? 'e2e' : 'unit') : verdict
  const folder = tier === 'unit' ? srcFolder(name, text) : e2eTheme(name, text)
  const target = join('test', tier, folder, `${name}.test.ts`)
  return {name, path: relative(root, path), target, tier, borderline: verdict === '?', signs: [...e2e, ...border]}
}

const rows = testFiles(testDir).map(classify).sort((a, b) => a.target.localeCompare(b.target))
const mode = process.argv[2]
if (mode === '--moves') {
  for (const row of rows) if (row.path !== row.target) process.stdout.write(`git mv ${row.path} ${row.target}\n`)
} else if (mode === '--check') {
  const wrong = rows.filter((row) => row.path.startsWith('test/unit/') && row.tier !== 'unit')
  for (const row of wrong) process.stdout.write(`${row.path}: an e2e test under test/unit/ (${row.signs.join(', ')})\n`)
  process.exitCode = wrong.length > 0 ? 1 : 0
} else {
  for (const row of rows)
    process.stdout.write(`${row.tier}${row.borderline ? '?' : ' '} ${row.target.padEnd(60)} ${row.path === row.target ? '' : `(now ${row.path}) `}${row.signs.join(' ')}\n`)
  const count = (tier) => rows.filter((row) => row.tier === tier).length
  process.stdout.write(`${rows.length} files: ${count('unit')} unit, ${count('e2e')} e2e, ${rows.filter((row) => row.borderline).length} borderline\n`)
}
