import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {agentHeading} from '../../../src/plan/agent-heading.js'
import {agentHeadingProblem} from '../../../src/plan/agent-heading-problem.js'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {checkPlan} from '../../../src/plan/check-plan.js'
import {runCli, shellPlan} from '../../helpers/run-cli.js'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {forEachShapes} from '../../helpers/real-plans.js'

describe('agent headings', () => {
  it.each([
    ['A: types', {id: 'A', name: 'types'}],
    ['B2: api', {id: 'B2', name: 'api'}],
    ['api-client: HTTP client', {id: 'api-client', name: 'HTTP client'}],
    ['Agent C: ui', {id: 'C', name: 'ui'}],
    ['`D.1`: Ärger mit Umlauten', {id: 'D.1', name: 'Ärger mit Umlauten'}],
    ['E:', {id: 'E', name: ''}]
  ])('reads %j', (text, expected) => {
    expect(agentHeading(text)).toEqual(expected)
    expect(agentHeadingProblem(text, true)).toBeUndefined()
  })

  it.each([
    ['Task 2: setup', /`Task 2` .* is not an agent ID: .*write `### Task-2: setup`/],
    ['Ä: x', /`Ä` .* is not an agent ID: .*write `### A: x`/],
    ['2: numbers first', /`2` .* is not an agent ID(?!.*write `###)/],
    ['B - api', /`### B - api` is not an agent heading: .*write `### B: api`/],
    ['api-client — HTTP', /write `### api-client: HTTP`/]
  ])('refuses %j with the accepted form', (text, message) => {
    expect(agentHeading(text)).toBeUndefined()
    expect(agentHeadingProblem(text, false)).toMatch(message)
    expect(agentHeadingProblem(text, false)).toContain('an agent heading is `### <ID>: <name>`')
  })

  it('leaves subsections alone unless they hold agent fields', () => {
    expect(agentHeadingProblem('Amendments', false)).toBeUndefined()
    expect(agentHeadingProblem('Amendments (post-review)', false)).toBeUndefined()
    expect(agentHeadingProblem('Setup', true)).toMatch(/has agent fields but no ID/)
  })
})

describe('headings under ## Agents in a plan', () => {
  const plan = [
    '# Plan', '', '## Agents', '',
    '### A: types', '- **depends_on**: []', '- **prompt**: |', '    do A', '',
    '### Task 2: setup', '- **depends_on**: [A]', '- **prompt**: |', '    do 2', '',
    '### Ä: x', '- **prompt**: |', '    do Ä', '',
    '### B - api', '- **prompt**: |', '    do B', '',
    '### Setup', '- **creates**: [`x.ts`]', '',
    '### Amendments', '', '- A: now also writes docs', '- C: reads the new docs', ''
  ].join('\n')

  it('reports each with its position, and keeps `### Amendments` a subsection', () => {
    const parsed = parsePlan(plan, 'plan.md')
    expect(parsed.agents.map((agent) => agent.id)).toEqual(['A'])
    const found = checkPlan(parsed).filter((d) => d.rule === 'invalid-agent-heading')
    expect(found.map((d) => (d.place && 'start' in d.place ? `${d.place.start.line}:${d.place.start.column}` : ''))).toEqual(['10:1', '15:1', '19:1', '23:1'])
    expect(found.every((d) => d.severity === 'error')).toBe(true)
  })

  it('validate and run refuse the plan; nothing runs', async () => {
    await isolateGitConfig()
    const text = shellPlan({A: {script: 'touch a-ran'}}).replace('## Execution State', '### Task 2: setup\n- **prompt**: |\n    touch task-ran\n\n## Execution State')
    const repo = await tempRepo({'plan.md': text})
    const validate = await runCli(['validate', 'plan.md'], {cwd: repo.root})
    expect(validate.exitCode).toBe(2)
    expect(validate.all).toMatch(/plan\.md:\d+:1: `Task 2` in `### Task 2: setup` is not an agent ID/)
    const run = await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(run.exitCode).toBe(2)
    expect(existsSync(join(repo.root, 'a-ran'))).toBe(false)
    expect(await repo.read('plan.md')).toBe(text)
    await repo.cleanup()
  })
})

forEachShapes((shapes) => {
  it('keeps every plan in a real plan\'s shape as valid as it was', () => {
    const files = readdirSync(shapes.dir, {recursive: true, encoding: 'utf8'}).filter((name) => name.endsWith('.md') && name !== 'README.md')
    expect(files.length).toBeGreaterThanOrEqual(5)
    for (const name of files) {
      const problems = checkPlan(parsePlan(readFileSync(join(shapes.dir, name), 'utf8'), name))
      expect(problems.filter((d) => d.severity === 'error'), name).toEqual([])
    }
  })
})
