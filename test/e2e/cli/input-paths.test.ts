import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {readAgentLog, logged} from '../../helpers/agent-log.js'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {execa} from 'execa'
import {bin, runCli, shellPlan} from '../../helpers/run-cli.js'

// Paths a person gives mdplan that are not what it expects: each is one line,
// exit 2, nothing created, nothing changed, and nothing hangs (a FIFO read
// would block forever and ignore SIGTERM, so each command gets a kill timer
// and a hang shows as a killed process instead of a stuck suite).
const cli = (args: string[], cwd: string) => runCli(args, {cwd})
const killedAfter = (args: string[], cwd: string) =>
  execa(process.execPath, [bin, ...args], {cwd, env: {NO_COLOR: '1'}, reject: false, all: true, timeout: 20_000, killSignal: 'SIGKILL'})

describe('mdplan run --cwd', () => {
  it.each([['a missing folder', 'nope/deeper'], ['a file', 'plan.md']])('%s: exit 2, one line, nothing created, no agent launched', async (_, target) => {
    await isolateGitConfig()
    const repo = await tempRepo({'README.md': '# x\n'})
    const log = join(repo.root, 'agents.log')
    const plan = shellPlan({A: {script: logged(log, 'true')}, B: {deps: ['A'], script: logged(log, 'true')}})
    await repo.commit('plan', {'plan.md': plan})
    const before = readdirSync(repo.root).sort()
    const run = await cli(['run', 'plan.md', '--cwd', target], repo.root)
    expect(run.exitCode).toBe(2)
    const lines = run.all!.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(new RegExp(`^mdplan run: --cwd ${target.replace('/', '\\/')} (does not exist|is a regular file|is not a folder|is .*, not a folder);`))
    expect(readdirSync(repo.root).sort()).toEqual(before)
    expect(existsSync(join(repo.root, 'nope'))).toBe(false)
    expect(await repo.read('plan.md')).toBe(plan)
    expect((await readAgentLog(log)).lines).toEqual([])
    expect(await repo.git('status', '--porcelain')).toBe('')
    // --dry-run refuses it the same way.
    expect((await cli(['run', 'plan.md', '--dry-run', '--cwd', target], repo.root)).exitCode).toBe(2)
    await repo.cleanup()
  })
})

describe('a FIFO, a folder or a device given as the plan', () => {
  const commands: string[][] = [['validate'], ['status'], ['status', '--json'], ['run'], ['run', '--dry-run'], ['report'], ['graph'], ['graph', '--write'], ['answer', '{}', 'A', 'yes'], ['history', '{}', '--out', 'h.json'], ['diff']]
  it.each(commands)('mdplan %s … fails at once with one line and exit 2', async (...command) => {
    const dir = (await tempRepo({'README.md': '# x\n'})).root
    execFileSync('mkfifo', [join(dir, 'fifo.md')])
    mkdirSync(join(dir, 'folder.md'))
    for (const [target, kind] of [
      ['fifo.md', 'a FIFO \\(named pipe\\)'],
      ['folder.md', 'a directory'],
      ['/dev/null', 'a character device']
    ] as const) {
      const args = command.includes('{}') ? command.map((word) => (word === '{}' ? target : word)) : [command[0]!, target, ...command.slice(1)]
      const run = await killedAfter(args, dir)
      expect(run.isTerminated, `${args.join(' ')} hung`).toBe(false)
      expect(run.exitCode, args.join(' ')).toBe(2)
      const output = run.all!.trim()
      expect(output.split('\n')[0], args.join(' ')).toMatch(new RegExp(`${target.replace(/[./]/g, '\\$&')}\` is ${kind}, not a Markdown file`))
    }
    expect(readdirSync(dir).sort()).toEqual(['.git', 'README.md', 'fifo.md', 'folder.md'])
  })
})

describe('mdplan merge-driver with a FIFO as an input', () => {
  it('one line naming the input, exit 2, no hang, ours untouched', async () => {
    const dir = (await tempRepo({'ours.md': '# ours\n', 'theirs.md': '# theirs\n'})).root
    execFileSync('mkfifo', [join(dir, 'base.md')])
    const run = await killedAfter(['merge-driver', 'base.md', 'ours.md', 'theirs.md', 'plan.md'], dir)
    expect(run.isTerminated).toBe(false)
    expect(run.exitCode).toBe(2)
    expect(run.stderr.trim()).toMatch(/^mdplan merge-driver: plan\.md: cannot read \S*base\.md \(a FIFO \(named pipe\), not a regular file\)$/)
    expect(readFileSync(join(dir, 'ours.md'), 'utf8')).toBe('# ours\n')
  })
})

describe('mdplan init --dir', () => {
  it.each([['a missing folder', 'nope'], ['a file', 'README.md']])('%s: one line, exit 2, nothing created', async (_, target) => {
    const dir = (await tempRepo({'README.md': '# x\n'})).root
    const run = await killedAfter(['init', '--dir', target], dir)
    expect(run.exitCode).toBe(2)
    expect(run.stderr.trim()).toMatch(new RegExp(`^mdplan init: --dir ${target.replace('.', '\\.')} (does not exist|is a regular file, not a folder); nothing was installed\\.$`))
    expect(readdirSync(dir).sort()).toEqual(['.git', 'README.md'])
  })
})

describe('mdplan history --out', () => {
  const plan = shellPlan({A: {script: 'true'}})
  it.each([
    ['/proc/x.json', /^mdplan history: cannot write \/proc\/x\.json \(ENOENT: no such file or directory\); nothing was written, choose another --out\.$/],
    ['plan.md/x.json', /^mdplan history: --out plan\.md\/x\.json cannot be made: \S+plan\.md is a regular file, not a folder; nothing was written, choose another --out\.$/],
    ['fifo.json', /^mdplan history: --out fifo\.json is a FIFO \(named pipe\), not a regular file; nothing was written, choose another --out\.$/]
  ])('%s: one line naming the path and the cause, exit 2', async (out, message) => {
    const dir = (await tempRepo({'plan.md': plan})).root
    execFileSync('mkfifo', [join(dir, 'fifo.json')])
    const run = await killedAfter(['history', 'plan.md', '--out', out], dir)
    expect(run.isTerminated).toBe(false)
    expect(run.exitCode).toBe(2)
    expect(run.stdout).toBe('')
    expect(run.stderr.trim().split('\n')).toHaveLength(1)
    expect(run.stderr.trim()).toMatch(message)
  })
})

describe('two agents that can run at once naming one child plan', () => {
  const child = shellPlan({C: {script: 'true'}})
  const parent = (bDeps: string[]) =>
    [
      '# Parallel Plan: parent',
      '',
      '## Agents',
      '',
      '### A: first',
      '- **depends_on**: []',
      '- **plan**: child.md',
      '',
      '### B: second',
      `- **depends_on**: [${bDeps.join(', ')}]`,
      '- **plan**: ./child.md',
      ''
    ].join('\n')

  it('is a validate error naming both agents with file:line:col, and run launches nothing', async () => {
    const dir = (await tempRepo({'child.md': child, 'plan.md': parent([])})).root
    const validate = await runCli(['validate', 'plan.md'], {cwd: dir})
    expect(validate.exitCode).toBe(2)
    expect(validate.stdout).toContain(
      'plan.md:11:1: agents A and B can run at the same time and both run the plan `./child.md` (plan.md:7:1 and plan.md:11:1); one plan runs once at a time: make B depend on A, or give each its own plan [shared-child-plan]'
    )
    const run = await runCli(['run', 'plan.md'], {cwd: dir})
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toContain('[shared-child-plan]')
  })

  it('is fine when one depends on the other', async () => {
    const dir = (await tempRepo({'child.md': child, 'plan.md': parent(['A'])})).root
    const validate = await runCli(['validate', 'plan.md'], {cwd: dir})
    expect(validate.stdout).not.toContain('shared-child-plan')
    expect(validate.exitCode).toBe(0)
  })
})
