import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {checkPlan} from '../../../src/plan/check-plan.js'

const plan = (agents: string, rest = ''): string => `# P\n\n## Agents\n\n${agents}\n${rest}`

describe('agent fields', () => {
  it('reads every dependency list form', () => {
    const forms: Array<[string, string[]]> = [
      ['[]', []],
      ['[A, B]', ['A', 'B']],
      ['A, B', ['A', 'B']],
      ['—', []],
      ['none', []],
      ['None', []],
      ['[`A`, `B`]', ['A', 'B']],
      ['`A`', ['A']],
      ['A (types first), B', ['A', 'B']]
    ]
    for (const [value, ids] of forms) {
      const parsed = parsePlan(plan(`### A: a\n- **prompt**: a\n\n### B: b\n- **prompt**: b\n\n### C: c\n- **depends_on**: ${value}\n- **prompt**: c\n`), 'p.md')
      const c = parsed.agents.find((agent) => agent.id === 'C')!
      expect(c.dependsOn.map((ref) => ref.id), value).toEqual(ids)
      for (const ref of c.dependsOn) expect(parsed.text.slice(ref.position.start.offset, ref.position.end.offset)).toBe(ref.id)
    }
  })

  it('splits paths on top-level commas only and keeps annotations apart', () => {
    const parsed = parsePlan(plan('### A: a\n- **creates**: [app/api/[address]/route.ts, `app/[a,b]/x.ts` (new), src/E.tsx (if no ErrorBoundary exists), {a,b}.ts]\n- **prompt**: a\n'), 'p.md')
    expect(parsed.agents[0]!.creates.map((ref) => [ref.path, ref.annotation])).toEqual([
      ['app/api/[address]/route.ts', undefined],
      ['app/[a,b]/x.ts', 'new'],
      ['src/E.tsx', 'if no ErrorBoundary exists'],
      ['{a,b}.ts', undefined]
    ])
    for (const ref of parsed.agents[0]!.creates) expect(parsed.text.slice(ref.position.start.offset, ref.position.end.offset)).toBe(ref.path)
  })

  it('takes a fence right after the field list as the prompt of an empty `prompt:`', () => {
    const parsed = parsePlan(plan('### A: a\n- **depends_on**: []\n- **prompt**:\n\n```markdown\n# Title\n\nDo it.\n```\n\nAfter the fence: not the prompt.\n'), 'p.md')
    expect(parsed.agents[0]!.prompt).toMatchObject({source: 'fence', text: '# Title\n\nDo it.'})
  })

  it('keeps a 4-space prompt verbatim: headings, lists and fences inside', () => {
    const body = ['Intro.', '', '## Steps', '1. one', '   - nested', '', '```sh', '# comment', 'echo "a  b"', '```', '', '    indented code in the prompt'].join('\n')
    const indented = body
      .split('\n')
      .map((line) => (line === '' ? '' : `    ${line}`))
      .join('\n')
    const parsed = parsePlan(plan(`### A: a\n- **prompt**: |\n${indented}\n- **persona**: after the block\n`), 'p.md')
    expect(parsed.agents[0]!.prompt!.text).toBe(body)
    expect(parsed.agents[0]!.fields.persona!.value).toBe('after the block')
  })

  it('accepts `Agent A: name` headings and ignores H3s that are not `ID: name`', () => {
    const parsed = parsePlan(plan('### Agent A: first\n- **prompt**: a\n\n### Amendments\n\n- none\n\n### 1: not an id\n'), 'p.md')
    expect(parsed.agents.map((agent) => [agent.id, agent.name])).toEqual([['A', 'first']])
  })

  it('estimated_duration in every documented form', () => {
    const forms: Array<[string, number]> = [
      ['140ms', 140],
      ['45s', 45_000],
      ['5m', 300_000],
      ['~5 min', 300_000],
      ['1h30m', 5_400_000]
    ]
    for (const [value, ms] of forms) {
      const parsed = parsePlan(plan(`### A: a\n- **estimated_duration**: ${value}\n- **prompt**: a\n`), 'p.md')
      expect(parsed.agents[0]!.estimatedMs, value).toBe(ms)
    }
  })
})

describe('Execution State', () => {
  it('reads a table without outer pipes, bold meta keys, and a meta line glued to the table', () => {
    const parsed = parsePlan(plan('### A: a\n- **prompt**: a\n', '\n## Execution State\n\nAgent | Status | Notes\n--- | --- | ---\nA | failed | attempt 1: x \\| y\n**Started:** 2026-01-15T14:22:10Z\nBuild: pass\n'), 'p.md')
    const table = parsed.state!.table!
    expect(table.columns).toEqual(['Agent', 'Status', 'Notes'])
    expect(table.index).toEqual({agent: 0, status: 1, agentId: -1, duration: -1, notes: 2})
    expect(table.rows).toHaveLength(1)
    expect(table.rows[0]).toMatchObject({agent: 'A', status: 'failed'})
    expect(table.rows[0]!.cells[2]!.value).toBe('attempt 1: x | y')
    expect(parsed.state!.meta.map((line) => [line.key, line.value])).toEqual([
      ['started', '2026-01-15T14:22:10Z'],
      ['build', 'pass']
    ])
    const row = table.rows[0]!.position
    expect(parsed.text.slice(row.start.offset, row.end.offset)).toBe('A | failed | attempt 1: x \\| y')
  })

  it('only a real `## Execution State` heading counts, not one in a fence or a second one', () => {
    const parsed = parsePlan(
      plan('### A: a\n- **prompt**: a\n', '\n## Notes\n\n```\n## Execution State\n| Agent | Status |\n|---|---|\n| A | failed |\n```\n\n## Execution State\n\n| Agent | Status |\n|---|---|\n| A | completed |\n\n## Execution State\n'),
      'p.md'
    )
    expect(parsed.state!.table!.rows[0]!.status).toBe('completed')
    expect(checkPlan(parsed).map((d) => d.rule)).toEqual(['duplicate-state-section'])
  })

  it('a second `| Agent |` table elsewhere is not the state table', () => {
    const parsed = parsePlan(plan('### A: a\n- **prompt**: a\n', '\n## Branches\n\n| Agent | Status |\n|---|---|\n| A | merged |\n'), 'p.md')
    expect(parsed.state).toBeUndefined()
  })
})

describe('bytes the parser must not lose', () => {
  it('BOM: stripped from text, remembered, offsets index the stripped text', () => {
    const parsed = parsePlan('\uFEFF' + plan('### A: a\n- **prompt**: a\n'), 'p.md')
    expect(parsed.bom).toBe(true)
    expect(parsed.text.startsWith('#')).toBe(true)
    const heading = parsed.agents[0]!.position
    expect(parsed.text.slice(heading.start.offset, heading.end.offset)).toBe('### A: a')
  })

  it('CRLF and no final newline', () => {
    const parsed = parsePlan('# P\r\n\r\n## Agents\r\n\r\n### A: a\r\n- **prompt**: |\r\n    one\r\n\r\n    two', 'p.md')
    expect(parsed.eol).toBe('\r\n')
    expect(parsed.finalNewline).toBe(false)
    expect(parsed.agents[0]!.prompt!.text).toBe('one\n\ntwo')
  })
})
