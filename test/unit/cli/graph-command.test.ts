import {cp, mkdtemp, readFile, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {registerGraph} from '../../../src/cli/commands/graph.js'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {renderMermaid} from '../../../src/report/render-mermaid.js'
import {mermaidMarker} from '../../../src/report/upsert-mermaid-block.js'
import {dagSection, tracksGraph} from '../../../src/report/dag-section.js'
import {PlanStore} from '../../../src/store/plan-store.js'
import {runCommand} from '../../../fixtures/report/run-command.js'

async function copyFixture(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mdplan-graph-'))
  await cp(new URL('../../../fixtures/report/every-status', import.meta.url), dir, {recursive: true})
  return dir
}

describe('mdplan graph', () => {
  it('prints the Mermaid flowchart and writes nothing', async () => {
    const dir = await copyFixture()
    const before = await readFile(join(dir, 'plan.md'), 'utf8')
    const run = await runCommand(registerGraph, ['graph', 'plan.md'], {cwd: dir})
    expect(run.code).toBe(0)
    expect(run.stdout).toBe(await readFile(new URL('../../../fixtures/report/every-status/graph.mmd', import.meta.url), 'utf8'))
    expect(await readFile(join(dir, 'plan.md'), 'utf8')).toBe(before)
  })

  it('--write adds the block under DAG Visualization, keeps the ASCII picture and every other byte, and is idempotent', async () => {
    const dir = await copyFixture()
    const file = join(dir, 'plan.md')
    const before = await readFile(file, 'utf8')
    const run = await runCommand(registerGraph, ['graph', 'plan.md', '--write'], {cwd: dir})
    expect(run).toMatchObject({code: 0, stdout: 'plan.md: DAG Visualization updated\n'})
    const after = await readFile(file, 'utf8')
    const ascii = '## DAG Visualization\n```\nA ──→ B ──→ end\n └──→ C ──↗\nD ──────────↗\n```\n'
    const block = '\n```mermaid\n' + renderMermaid(parsePlan(before, file)).replace('flowchart TD\n', `flowchart TD\n${mermaidMarker}\n`) + '```\n'
    expect(after).toBe(before.replace(ascii, ascii + block))

    const again = await runCommand(registerGraph, ['graph', 'plan.md', '--write'], {cwd: dir})
    expect(again.stdout).toBe('plan.md: DAG Visualization already current\n')
    expect(await readFile(file, 'utf8')).toBe(after)

    // A status changes (as a run would write it): only the class lines of the block change.
    await writeFile(file, after.replace('| B | in_progress |', '| B | completed |'))
    await runCommand(registerGraph, ['graph', 'plan.md', '--write'], {cwd: dir})
    const third = await readFile(file, 'utf8')
    expect(third).toContain('  class A,B completed')
    expect(third.split('```mermaid').length).toBe(2)
    expect(third).toContain(ascii)
  })

  it('after graph --write, the executor keeps the block current through the store (tracksGraph + dagSection)', async () => {
    const dir = await copyFixture()
    const file = join(dir, 'plan.md')
    const store = await PlanStore.open(file)
    expect(tracksGraph(store.plan)).toBe(false)
    await runCommand(registerGraph, ['graph', 'plan.md', '--write'], {cwd: dir})
    const later = await PlanStore.open(file)
    expect(tracksGraph(later.plan)).toBe(true)
    const state = later.state
    state.rows.get('B')!.status = 'completed'
    await later.write(state, {running: new Set()})
    await later.editSection('DAG Visualization', dagSection)
    const text = await readFile(file, 'utf8')
    expect(text).toContain('| B | completed |')
    expect(text).toContain('  class A,B completed')
    expect(text.split(mermaidMarker).length).toBe(2)
  })

  it('--write adds the section to a plan without one, before the Execution State', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-graph-'))
    const text = '# P\r\n\r\n## Agents\r\n\r\n### A: one\r\n- **depends_on**: []\r\n\r\n## Execution State\r\n\r\n| Agent | Status |\r\n|---|---|\r\n| A | completed |\r\n'
    await writeFile(join(dir, 'plan.md'), '\ufeff' + text)
    expect((await runCommand(registerGraph, ['graph', 'plan.md', '--write'], {cwd: dir})).code).toBe(0)
    const after = await readFile(join(dir, 'plan.md'), 'utf8')
    expect(after).toBe(
      `\ufeff# P\r\n\r\n## Agents\r\n\r\n### A: one\r\n- **depends_on**: []\r\n\r\n## DAG Visualization\r\n\r\n\`\`\`mermaid\r\nflowchart TD\r\n${mermaidMarker}\r\n  A["A: one"]\r\n` +
        after.slice(after.indexOf('  classDef pending'), after.indexOf('## Execution State')) +
        '## Execution State\r\n\r\n| Agent | Status |\r\n|---|---|\r\n| A | completed |\r\n'
    )
    expect(after).toContain('  class A completed\r\n```\r\n\r\n## Execution State')
  })

  it('a missing plan is an error that says what to do, exit 2', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-graph-'))
    const run = await runCommand(registerGraph, ['graph', 'nope.md'], {cwd: dir})
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/nope\.md` does not exist \[file-not-found\]/)
    expect(run.stderr).toContain('run `mdplan graph` again')
  })

  it('has help', async () => {
    const run = await runCommand(registerGraph, ['graph', '--help'], {cwd: tmpdir()})
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('--write')
    expect(run.stdout).toContain('soft_depends_on')
  })
})
