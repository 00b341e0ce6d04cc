import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {root, runCli} from '../../helpers/run-cli.js'

/**
 * Every command that reads a plan's progress or writes into the plan refuses one a merge left with
 * conflict markers, as validate and run do: exit 2, the marker's file:line:col and rule, and the file
 * byte for byte as it was. The conflict is a real one, from `git merge` in a real repository.
 */
let repo: TempRepo
let conflicted: Buffer
const queue = readFileSync(join(root, 'fixtures', 'import', 'waves', 'issues.jsonl'), 'utf8')

const plan = (a: string): string => `---
runner: shell
issues: issues.jsonl
---

# Parallel Plan: conflicted

## Agents

### A: ask
- **depends_on**: []

\`\`\`bash
echo a
\`\`\`

### B: after
- **depends_on**: [A]

\`\`\`bash
echo b
\`\`\`

## Open Questions

### A: which database?
- **Question**: which database?
- **Answer**:

## Execution State

| Agent | Status | Agent ID | Duration | Notes |
|-------|--------|----------|----------|-------|
${a}
| B | pending | — | — | |
`

beforeAll(async () => {
  await isolateGitConfig()
  repo = await tempRepo({'plans/plan.md': plan('| A | in_progress | sh-1 | — | |'), 'issues.jsonl': queue})
  await repo.git('checkout', '--quiet', '-b', 'side')
  await repo.commit('side: A completed', {'plans/plan.md': plan('| A | completed | sh-1 | 1s | |')})
  await repo.git('checkout', '--quiet', 'main')
  await repo.commit('main: A asks', {'plans/plan.md': plan('| A | needs_input | sh-1 | 1s | question: which database? |')})
  await repo.git('merge', '--quiet', 'side').catch(() => undefined)
  conflicted = readFileSync(join(repo.root, 'plans', 'plan.md'))
  expect(conflicted.toString()).toContain('<<<<<<<')
})
afterAll(async () => await repo.cleanup())

const marker = (): number => conflicted.toString().split('\n').findIndex((line) => line.startsWith('<<<<<<<')) + 1

describe('a plan with conflict markers', () => {
  const cases: Array<[string, string[]]> = [
    ['answer', ['answer', 'plans/plan.md', 'A', 'postgres']],
    ['history', ['history', 'plans/plan.md']],
    ['diff', ['diff', 'plans/plan.md']],
    ['diff against a revision', ['diff', 'plans/plan.md', 'side']],
    ['import --out onto it', ['import', 'issues.jsonl', '--out', 'plans/plan.md']],
    ['import --out --force onto it', ['import', 'issues.jsonl', '--out', 'plans/plan.md', '--force']]
  ]
  for (const [name, args] of cases) {
    it(`${name}: exit 2 at the marker's line, the file untouched`, async () => {
      const result = await runCli(args, {cwd: repo.root})
      expect(result.exitCode, result.all).toBe(2)
      expect(result.stderr).toMatch(new RegExp(`plans/plan\\.md:${marker()}:1: conflict markers .*\\[(damaged-state-table|conflict-markers)\\]`))
      expect(readFileSync(join(repo.root, 'plans', 'plan.md')).equals(conflicted)).toBe(true)
    })
  }

  it('merge-driver: an input that already holds markers is not merged (exit 2, ours untouched)', async () => {
    await repo.write('base.md', plan('| A | in_progress | sh-1 | — | |'))
    await repo.write('theirs.md', plan('| A | in_progress | sh-1 | — | |').replace('| B | pending | — | — | |', '| B | completed | sh-2 | 2s | |'))
    for (const [ours, theirs] of [['plans/plan.md', 'theirs.md'], ['theirs.md', 'plans/plan.md']] as const) {
      const before = readFileSync(join(repo.root, ours))
      const result = await runCli(['merge-driver', 'base.md', ours, theirs, 'plans/plan.md'], {cwd: repo.root})
      expect(result.exitCode, result.all).toBe(2)
      expect(result.stderr).toMatch(new RegExp(`plans/plan\\.md:${marker()}:1: conflict markers .* in (ours|theirs) .*\\[conflict-markers\\]`))
      expect(readFileSync(join(repo.root, ours)).equals(before)).toBe(true)
    }
  })
})

describe('front matter YAML that parses but has no value', () => {
  it('an alias with no anchor (`- **prompt**:` pasted into the front matter) is an invalid-front-matter error, not a crash', async () => {
    const {parsePlan} = await import('../../../src/plan/parse-plan.js')
    const plan = parsePlan('---\n- **prompt**:\n---\n', 'fuzz.md')
    expect(plan.messages.map((message) => message.rule)).toContain('invalid-front-matter')
  })
})
