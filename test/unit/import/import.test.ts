import {cp, mkdtemp, readdir, readFile, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {registerImport} from '../../../src/cli/commands/import.js'
import {issuesToPlan} from '../../../src/import/issues-to-plan.js'
import {ImportError, readIssues} from '../../../src/import/read-issues.js'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {runCommand} from '../../../fixtures/report/run-command.js'

const fixture = (path: string): URL => new URL(`../../../fixtures/import/${path}`, import.meta.url)

async function copy(name: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mdplan-import-'))
  await cp(fixture(name), dir, {recursive: true})
  return dir
}

const deps = (plan: ReturnType<typeof parsePlan>): Record<string, string[]> =>
  Object.fromEntries(plan.agents.map((agent) => [agent.id, agent.dependsOn.map((dep) => dep.id)]))

describe('mdplan import', () => {
  it('turns a queue with waves and dependencies into a valid plan', async () => {
    const dir = await copy('waves')
    const run = await runCommand(registerImport, ['import', 'issues.jsonl', '--runner', 'claude'], {cwd: dir})
    expect(run.stderr).toBe('')
    expect(run).toMatchObject({code: 0, stdout: 'plan.md: 4 issues → 8 agents, 1 completed skipped\nNext: review it, then `mdplan run plan.md`.\n'})
    const text = await readFile(join(dir, 'plan.md'), 'utf8')
    if (process.env.UPDATE) await writeFile(fixture('waves/expected-plan.md'), text)
    expect(text).toBe(await readFile(fixture('waves/expected-plan.md'), 'utf8'))

    const plan = parsePlan(text, 'plan.md')
    expect(plan.messages.filter((m) => m.severity === 'error')).toEqual([])
    expect(plan.settings.runner).toBe('claude')
    expect(plan.agents.map((agent) => `${agent.id}: ${agent.name}`)).toEqual([
      'P1: plan-ISS-20260227-002',
      'E1: exec-ISS-20260227-002',
      'P2: plan-ISS-20260227-003',
      'E2: exec-ISS-20260227-003',
      'P3: plan-ISS-20260227-004',
      'E3: exec-ISS-20260227-004',
      'P4: plan-ISS-20260227-005',
      'E4: exec-ISS-20260227-005'
    ])
    // The completed issue is gone and dependencies on it are satisfied; planning
    // waits only on the plans of its issue's dependencies, so P3 and P4 can run
    // while E1 and E2 execute; execution keeps waves in order.
    expect(deps(plan)).toEqual({
      P1: [],
      E1: ['P1'],
      P2: [],
      E2: ['P2'],
      P3: ['P1', 'P2'],
      E3: ['P3', 'E1', 'E2'],
      P4: ['P1'],
      E4: ['P4', 'E1', 'E2']
    })
    expect(plan.agents[0]!.creates.map((path) => path.path)).toEqual(['.planning/issues/ISS-20260227-002.md'])
    // The issue's Markdown, headings and fence included, stays inside the prompt.
    expect(plan.agents[1]!.prompt!.text).toContain('## Goal\nCRUD routes for credentials.')
    expect(plan.agents[1]!.prompt!.text).toContain('```bash\nnpm test -- credentials\n```')
    expect(plan.agents[1]!.prompt!.text).toContain('- test strategy: unit')
    expect(plan.state!.table!.rows.map((row) => `${row.agent}:${row.status}`)).toEqual(plan.agents.map((agent) => `${agent.id}:pending`))
    expect(text).toContain('Skipped (already completed): `ISS-20260227-001`.')
  })

  it('refuses to overwrite --out without --force', async () => {
    const dir = await copy('waves')
    await writeFile(join(dir, 'mine.md'), 'my plan\n')
    const run = await runCommand(registerImport, ['import', 'issues.jsonl', '--out', 'mine.md'], {cwd: dir})
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('mine.md already exists; choose another --out, or add --force')
    expect(await readFile(join(dir, 'mine.md'), 'utf8')).toBe('my plan\n')
    const forced = await runCommand(registerImport, ['import', 'issues.jsonl', '--out', 'mine.md', '--force'], {cwd: dir})
    expect(forced.code).toBe(0)
    expect(await readFile(join(dir, 'mine.md'), 'utf8')).toMatch(/^---\nissues: issues\.jsonl\n---\n\n# Parallel Plan: Issues from issues\.jsonl/)
  })

  it('--out - prints the plan', async () => {
    const dir = await copy('waves')
    const run = await runCommand(registerImport, ['import', 'issues.jsonl', '--out', '-'], {cwd: dir})
    expect(run.stdout).toMatch(/^---\nissues: issues\.jsonl\n---\n\n# Parallel Plan/)
    expect((await readdir(dir)).sort()).toEqual(['expected-plan.md', 'issues.jsonl'])
  })

  it('a malformed line is a clear error naming the line, and nothing is written', async () => {
    const dir = await copy('malformed')
    const run = await runCommand(registerImport, ['import', 'issues.jsonl'], {cwd: dir})
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/^issues\.jsonl:3: not valid JSON: /)
    expect(run.stderr).toContain('Nothing was written. Fix this line and run `mdplan import issues.jsonl` again.')
    expect(await readdir(dir)).toEqual(['issues.jsonl'])
  })

  it('collects every problem, each with its line', () => {
    const text = ['{"id": "A", "tags": ["wave-2"]}', '[1]', '{"title": "no id"}', '{"id": "A"}', '{"id": "B", "extended_context": {"notes": {"depends_on_issues": "A"}}}'].join('\n')
    expect(() => readIssues(text, 'q.jsonl')).toThrow(ImportError)
    try {
      readIssues(text, 'q.jsonl')
    } catch (error) {
      expect((error as ImportError).problems).toEqual([
        'q.jsonl:2: not a JSON object (each line must be one issue: {"id": …, "title": …, "status": …})',
        'q.jsonl:3: the issue has no "id"',
        'q.jsonl:4: issue "A" already appears on line 1',
        'q.jsonl:5: "extended_context.notes.depends_on_issues" must be a list of issue ids'
      ])
    }
  })

  it('rejects a dependency on a later wave and a cycle; warns about unknown issues', () => {
    const later = readIssues('{"id":"A","tags":["wave-1"],"extended_context":{"notes":{"depends_on_issues":["B"]}}}\n{"id":"B","tags":["wave-2"]}', 'q.jsonl')
    expect(() => issuesToPlan(later, {source: 'q.jsonl'})).toThrow('q.jsonl:1: issue "A" (wave 1) depends on "B" (wave 2), a later wave; move one of them')
    const cycle = readIssues('{"id":"A","extended_context":{"notes":{"depends_on_issues":["B"]}}}\n{"id":"B","extended_context":{"notes":{"depends_on_issues":["A"]}}}', 'q.jsonl')
    expect(() => issuesToPlan(cycle, {source: 'q.jsonl'})).toThrow('issues depend on each other in a cycle: A → B → A')
    const unknown = issuesToPlan(readIssues('{"id":"A","extended_context":{"notes":{"depends_on_issues":["Z"]}}}', 'q.jsonl'), {source: 'q.jsonl'})
    expect(unknown.warnings).toEqual(['q.jsonl:1: issue "A" depends on "Z", which is not in the file; taken as done'])
    expect(deps(parsePlan(unknown.text, 'p.md'))).toEqual({P1: [], E1: ['P1']})
  })

  it('issue ids that make the same file name still get their own notes file', () => {
    const {text} = issuesToPlan(readIssues('{"id":"a/b"}\n{"id":"a:b"}', 'q.jsonl'), {source: 'q.jsonl'})
    const plan = parsePlan(text, 'p.md')
    expect(plan.agents.filter((agent) => agent.id.startsWith('P')).map((agent) => agent.creates[0]!.path)).toEqual(['.planning/issues/a-b.md', '.planning/issues/a-b-2.md'])
  })

  it('a missing file says so', async () => {
    const run = await runCommand(registerImport, ['import', 'nope.jsonl'], {cwd: tmpdir()})
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('cannot read nope.jsonl (no such file); check the path.')
  })
})
