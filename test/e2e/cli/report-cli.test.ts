import {cp, mkdtemp, readFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {execa} from 'execa'
import {describe, expect, it} from 'vitest'

// These spawn the built binary (the global setup builds dist/ first).
const root = fileURLToPath(new URL('../../..', import.meta.url))
const bin = join(root, 'bin', 'mdplan.js')
const mdplan = (args: string[], cwd: string) => execa(process.execPath, [bin, ...args], {cwd, reject: false, env: {NO_COLOR: '1'}})

describe('the built CLI', () => {
  it.each(['init', 'graph', 'report', 'import', 'history'])('`mdplan %s --help` explains the command', async (command) => {
    const run = await mdplan([command, '--help'], root)
    expect(run.exitCode).toBe(0)
    expect(run.stdout).toMatch(new RegExp(`^Usage: mdplan ${command} `))
    expect(run.stdout).not.toContain('not available yet')
  })

  it('--version prints the package version', async () => {
    const {version} = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {version: string}
    const run = await mdplan(['--version'], root)
    expect(run.stdout.trim()).toBe(version)
  })

  it('init installs the shipped templates; import, graph, report and history work on the plan it makes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-cli-'))
    await cp(join(root, 'fixtures/import/waves/issues.jsonl'), join(dir, 'issues.jsonl'))
    const init = await mdplan(['init'], dir)
    expect(init.exitCode).toBe(0)
    expect(await readFile(join(dir, '.claude/skills/execute-parallel-plan/SKILL.md'), 'utf8')).toContain('mdplan run $ARGUMENTS')

    expect((await mdplan(['import', 'issues.jsonl'], dir)).exitCode).toBe(0)
    const graph = await mdplan(['graph', 'plan.md'], dir)
    expect(graph.stdout).toContain('  P1 --> E1')
    expect(graph.stdout).toContain('  class P1,E1,P2,E2,P3,E3,P4,E4 pending')
    const report = await mdplan(['report', 'plan.md'], dir)
    expect(report.stdout).toMatch(/Agents +8 pending/)
    const history = await mdplan(['history', 'plan.md'], dir)
    expect(history.stdout).toContain('0 entries (max 50)')
  })

  it('errors say what to do next', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-cli-'))
    const report = await mdplan(['report', 'nope.md'], dir)
    expect(report.exitCode).toBe(2)
    expect(report.stderr).toContain('nope.md')
    expect(report.stderr).toContain('run `mdplan report` again')
  })
})
