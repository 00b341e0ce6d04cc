import {existsSync} from 'node:fs'
import {mkdtemp, readFile, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {execa} from 'execa'
import {describe, expect, it} from 'vitest'
import {createReporter} from '../../../src/report/create-reporter.js'
import {reporterMode} from '../../../src/report/reporter-mode.js'
import {plural} from '../../../src/util/plural.js'
import type {RunEvent} from '../../../src/events.js'
import {bin, root, runCli, shellPlan} from '../../helpers/run-cli.js'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'

const script = ['/usr/bin/script', '/bin/script'].find((path) => existsSync(path))

describe('a first run in a git repository', () => {
  it('leaves nothing of .mdplan/ in git status: the folder ignores itself', async () => {
    await isolateGitConfig()
    const repo = await tempRepo()
    const demo = await readFile(join(root, 'plans', 'demo.md'), 'utf8')
    await repo.commit('plan', {'plans/demo.md': demo})
    const result = await runCli(['run', 'plans/demo.md'], {cwd: repo.root})
    expect(result.exitCode, result.all).toBe(0)
    // The demo's agents write under .mdplan/demo-out/ (which ignores itself), mdplan its logs and process
    // registry beside the plan, in plans/.mdplan/.
    expect(existsSync(join(repo.root, 'plans', '.mdplan', 'logs', 'demo', 'A.1.log'))).toBe(true)
    expect(await readFile(join(repo.root, 'plans', '.mdplan', '.gitignore'), 'utf8')).toBe('*\n')
    const status = await repo.git('status', '--porcelain', '--untracked-files=all')
    expect(status).not.toContain('.mdplan')
    expect(status.trim()).toBe('M plans/demo.md')
    await repo.cleanup()
  })

  it('keeps a .gitignore the person put in .mdplan/ themselves', async () => {
    await isolateGitConfig()
    const repo = await tempRepo({'.mdplan/.gitignore': 'logs/\n', 'plan.md': shellPlan({A: {script: 'echo "RESULT: SUCCESS"'}})})
    const result = await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(result.exitCode, result.all).toBe(0)
    expect(await repo.read('.mdplan/.gitignore')).toBe('logs/\n')
    await repo.cleanup()
  })
})

describe('a terminal that reports 0 columns', () => {
  const events = (): RunEvent[] => {
    const time = '2026-01-01T10:00:00.000Z'
    return [
      {type: 'run-started', time, plan: 'plans/demo.md', agents: 2, concurrency: 2, resumed: false},
      {type: 'launched', time, agent: 'A', attempt: 1, resumed: false, log: '.mdplan/A.log'}
    ]
  }

  it('draws the live view 80 columns wide instead of cutting every line to nothing', () => {
    let out = ''
    const agent = (id: string) => ({id, name: `${id.toLowerCase()}-step`, dependsOn: [], softDependsOn: []})
    const plan = {file: 'plans/demo.md', agents: [agent('A'), agent('B')]} as never
    const reporter = createReporter({mode: 'tty', write: (text) => (out += text), plan, columns: () => 0, rows: () => 0, minRedrawMs: 0, now: () => Date.parse('2026-01-01T10:00:05.000Z')})
    for (const event of events()) reporter.event(event)
    reporter.close()
    const lines = out.split('\n').map((line) => line.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').trimEnd())
    expect(lines).toContain('mdplan plans/demo.md  5s')
    expect(lines.some((line) => /^ {2}▶ A {2}a-step/.test(line))).toBe(true)
    expect(lines.filter((line) => line === '…')).toEqual([])
  })

  it('prints plain event lines where the terminal cannot redraw in place (TERM=dumb)', () => {
    expect(reporterMode({isTTY: true, env: {TERM: 'dumb'}})).toBe('plain')
    expect(reporterMode({isTTY: true, env: {TERM: 'xterm-256color'}})).toBe('tty')
    expect(reporterMode({isTTY: false, env: {}})).toBe('plain')
  })

  it.skipIf(!script)('runs under script(1) with `stty cols 0`: the live view and the scorecard are readable', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-cols0-'))
    const log = join(dir, 'agents.log')
    await writeFile(join(dir, 'plan.md'), shellPlan({A: {script: logged(log, 'sleep 1\necho "RESULT: SUCCESS"')}, B: {deps: ['A'], script: logged(log, 'echo "RESULT: SUCCESS"')}}))
    const command = `stty cols 0 rows 0; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} run plan.md`
    const result = await execa(script!, ['-qec', command, '/dev/null'], {cwd: dir, env: {NO_COLOR: '1', TERM: 'xterm'}, reject: false})
    expect(result.exitCode, result.stdout).toBe(0)
    const text = result.stdout.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').replace(/\r/g, '')
    expect(text).toMatch(/^mdplan \S*plan\.md {2}\d/m)
    expect(text).toMatch(/^ {2}▶ A {2}a-step/m)
    expect(text).toMatch(/^A +a-step +completed +1 +\d/m)
    expect(text.split('\n').filter((line) => line.trim() === '…')).toEqual([])
    const side = await readAgentLog(log)
    expect([...side.starts.entries()]).toEqual([
      ['A#1', 1],
      ['B#1', 1]
    ])
  })
})

describe('counts and hints read right', () => {
  it('says 1 agent, not 1 agents', async () => {
    expect([plural(0, 'agent'), plural(1, 'agent'), plural(2, 'agent'), plural(1, 'entry', 'entries')]).toEqual(['0 agents', '1 agent', '2 agents', '1 entry'])
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-plural-'))
    await writeFile(join(dir, 'plan.md'), shellPlan({A: {script: 'echo "RESULT: SUCCESS"'}}))
    const validate = await runCli(['validate', 'plan.md'], {cwd: dir})
    expect(validate.stdout).toContain('plan.md: 1 agent, valid')
    const run = await runCli(['run', 'plan.md'], {cwd: dir})
    expect(run.exitCode, run.all).toBe(0)
    expect(run.stdout).toMatch(/started \S*plan\.md: 1 agent, concurrency 4/)
    expect(run.all).not.toMatch(/\b1 (agents|steps|attempts|errors)\b/)
  })

  it('points a runner that is not installed to its fix, not to `mdplan validate`', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-hint-'))
    await writeFile(join(dir, 'plan.md'), shellPlan({A: {script: 'echo "RESULT: SUCCESS"'}}).replace('runner: shell', 'runner: claude'))
    const run = await runCli(['run', 'plan.md'], {cwd: dir, env: {MDPLAN_CLAUDE_BIN: join(dir, 'no-such-claude')}})
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toContain('is not installed: npm install -g @anthropic-ai/claude-code [runner-not-installed]')
    expect(run.stderr).toContain('1 error: nothing was launched and the plan was not changed. Install or set up the runner as the line says')
    expect(run.stderr).not.toContain('mdplan validate')
    // validate indeed finds nothing wrong with this plan.
    expect((await runCli(['validate', 'plan.md'], {cwd: dir})).exitCode).toBe(0)

    // A problem validate does check keeps its hint.
    await writeFile(join(dir, 'cycle.md'), shellPlan({A: {deps: ['B'], script: 'true'}, B: {deps: ['A'], script: 'true'}}))
    const cycle = await runCli(['run', 'cycle.md'], {cwd: dir})
    expect(cycle.exitCode).toBe(2)
    expect(cycle.stderr).toContain('Fix the plan, or see `mdplan validate`.')
    expect(cycle.stderr).not.toContain('Install or set up the runner')
  })
})
