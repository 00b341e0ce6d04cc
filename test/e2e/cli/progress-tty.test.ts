import {execFileSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import {mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import ts from 'typescript'
import {afterAll, describe, expect, it} from 'vitest'

const root = fileURLToPath(new URL('../../..', import.meta.url))
const tmux = ['/usr/bin/tmux', '/usr/local/bin/tmux'].find((path) => existsSync(path))
const socket = `mdplan-test-${process.pid}`

/** Transpile the report code and what it imports, so a plain `node` in the terminal can run it without a build. */
async function transpile(into: string): Promise<void> {
  // All of src/: the report code's imports reach into other folders (a list of them went stale as the code moved).
  const files = (await readdir(join(root, 'src'), {recursive: true})).filter((name) => name.endsWith('.ts')).map((name) => `src/${name}`)
  for (const file of files) {
    const source = await readFile(join(root, file), 'utf8')
    const output = ts.transpileModule(source, {compilerOptions: {module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022}}).outputText
    const target = join(into, file.replace(/\.ts$/, '.js'))
    await mkdir(dirname(target), {recursive: true})
    await writeFile(target, output)
  }
  await writeFile(join(into, 'package.json'), '{"type": "module"}\n')
  await symlink(join(root, 'node_modules'), join(into, 'node_modules'))
}

// Feeds a small run to the live view, waits for the test's go-ahead, then finishes the run.
const driver = `
import {existsSync} from 'node:fs'
import {createReporter} from './src/report/create-reporter.js'
const agent = (id, name, deps) => ({id, name, dependsOn: deps.map((d) => ({id: d})), softDependsOn: []})
const plan = {file: 'plans/demo.md', agents: [agent('A', 'types', []), agent('B', 'api', []), agent('C', 'docs', []), agent('D', 'ui', ['A', 'B']), agent('E', 'e2e', ['D'])]}
const reporter = createReporter({mode: 'tty', write: (s) => process.stdout.write(s), color: false, plan, columns: () => process.stdout.columns, rows: () => process.stdout.rows})
const at = (s) => new Date(Date.now() + s * 1000).toISOString()
reporter.event({type: 'run-started', time: at(-12), plan: 'plans/demo.md', agents: 5, concurrency: 3, resumed: false})
reporter.event({type: 'launched', time: at(-12), agent: 'A', attempt: 1, resumed: false, log: '.mdplan/A.log'})
reporter.event({type: 'launched', time: at(-12), agent: 'C', attempt: 1, resumed: false, log: '.mdplan/C.log'})
reporter.event({type: 'launched', time: at(-9), agent: 'B', attempt: 1, resumed: false, log: '.mdplan/B.log'})
reporter.event({type: 'completed', time: at(-2), agent: 'C', attempt: 1, durationMs: 10000})
const wait = () => new Promise((resolve) => { const t = setInterval(() => { if (existsSync('go')) { clearInterval(t); resolve() } }, 50) })
await wait()
reporter.event({type: 'completed', time: at(0), agent: 'A', attempt: 1, durationMs: 12000})
reporter.event({type: 'failed', time: at(0), agent: 'B', attempt: 1, durationMs: 9000, reason: 'tests failed', willRetry: false})
reporter.event({type: 'run-finished', time: at(0), exitCode: 1, scorecard: {agents: [
  {id: 'A', name: 'types', status: 'completed', attempts: 1, durationMs: 12000},
  {id: 'B', name: 'api', status: 'failed', attempts: 1, durationMs: 9000},
  {id: 'C', name: 'docs', status: 'completed', attempts: 1, durationMs: 10000}],
  wallClockMs: 12000, sumOfPartsMs: 31000, speedup: 2.58, build: 'not yet run', counts: {completed: 2, failed: 1, pending: 2}}})
reporter.close()
setInterval(() => {}, 1000)
`

function capture(): string {
  return execFileSync(tmux!, ['-L', socket, 'capture-pane', '-p', '-t', 'live'], {encoding: 'utf8'})
}

/**
 * The screen once it shows `text`, polled for up to 30 s: node starting in the terminal and loading the
 * transpiled modules takes a few seconds on a loaded machine (a budget of 100 polls, some 10 s, ran out there).
 */
async function screenWith(text: string, ms = 30_000): Promise<string> {
  let screen = ''
  for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
    screen = capture()
    if (screen.includes(text)) return screen
  }
  throw new Error(`the screen never showed ${JSON.stringify(text)} in ${ms} ms:\n${screen}`)
}

describe.skipIf(!tmux)('live view in a terminal (tmux)', () => {
  let dir = ''
  afterAll(async () => {
    if (tmux) {
      try {
        execFileSync(tmux, ['-L', socket, 'kill-server'], {stdio: 'ignore'})
      } catch {
        // The server is already gone.
      }
    }
    if (dir) await rm(dir, {recursive: true, force: true})
  })

  it('shows running agents with elapsed time, counts and waits, redrawn in place, then the scorecard', async () => {
    dir = await mkdtemp(join(tmpdir(), 'mdplan-tty-'))
    await transpile(dir)
    await writeFile(join(dir, 'driver.mjs'), driver)
    execFileSync(tmux!, ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'live', '-x', '100', '-y', '30', '-c', dir, `${JSON.stringify(process.execPath)} driver.mjs`])

    const first = await screenWith('waiting: E ← D')
    const lines = first.split('\n').map((line) => line.trimEnd())
    expect(lines.filter((line) => line.startsWith('mdplan plans/demo.md'))).toHaveLength(1)
    expect(lines.some((line) => /^\d\d:\d\d:\d\d completed C in 10s/.test(line))).toBe(true)
    // Elapsed times from the launch events (12s and 9s ago when sent; more on a busy machine).
    const elapsed = (pattern: RegExp): number => Number(lines.map((line) => pattern.exec(line)?.[1]).find((value) => value !== undefined) ?? NaN)
    expect(elapsed(/^ {2}▶ A {2}types +(\d+)s$/)).toBeGreaterThanOrEqual(12)
    expect(elapsed(/^ {2}▶ B {2}api +(\d+)s$/)).toBeGreaterThanOrEqual(9)
    expect(lines).toContain('  1 completed · 2 running · 2 pending')
    expect(lines).toContain('  waiting: D ← A, B')
    expect(lines).toContain('  waiting: E ← D')

    // The view ticks: the elapsed time moves on, and the frame is redrawn in place, not appended.
    const a = /▶ A {2}types +(\d+)s/.exec(first)![1]
    const later = await (async () => {
      // The view ticks once a second; up to 15 s for the next tick to reach the screen on a loaded machine.
      for (const deadline = Date.now() + 15_000; Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        const screen = capture()
        const now = /▶ A {2}types +(\d+)s/.exec(screen)?.[1]
        if (now !== undefined && now !== a) return screen
      }
      throw new Error('the elapsed time never changed in 15 s')
    })()
    expect(later.split('\n').filter((line) => line.startsWith('mdplan plans/demo.md'))).toHaveLength(1)
    expect(later.split('\n').filter((line) => line.includes('waiting: E ← D'))).toHaveLength(1)

    await writeFile(join(dir, 'go'), '')
    const end = await screenWith('Speedup')
    expect(end).toContain('Scorecard')
    expect(end).toMatch(/B\s+api\s+failed\s+1\s+9s/)
    expect(end).toMatch(/failed B after 9s \(attempt 1\): tests failed/)
    // The live frame is gone once the run finished.
    expect(end).not.toContain('▶')
    expect(end).not.toContain('waiting:')
  }, 120_000)
})
