import {readFile, writeFile} from 'node:fs/promises'
import {describe, expect, it} from 'vitest'
import {loadPlan} from '../../../src/plan/load-plan.js'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {renderMermaid} from '../../../src/report/render-mermaid.js'
import {mermaidMarker, upsertMermaidBlock} from '../../../src/report/upsert-mermaid-block.js'

const fixture = (path: string): URL => new URL(`../../../fixtures/report/${path}`, import.meta.url)

/** Compare with a golden file; `UPDATE=1` rewrites it for review in the diff. */
async function golden(path: string, actual: string): Promise<void> {
  if (process.env.UPDATE) await writeFile(fixture(path), actual)
  expect(actual).toBe(await readFile(fixture(path), 'utf8'))
}

describe('renderMermaid', () => {
  it('draws every status as a class, hard and soft dependencies, and safe labels and ids', async () => {
    const plan = await loadPlan(fixture('every-status/plan.md').pathname)
    const mermaid = renderMermaid(plan)
    await golden('every-status/graph.mmd', mermaid)
    expect(mermaid.startsWith('flowchart TD\n')).toBe(true)
    expect(mermaid).toContain('  A["A: types"]')
    // Quotes and angle brackets in a name cannot end the label or open HTML.
    expect(mermaid).toContain('  C["C: ui #quot;list#quot; #lt;view#gt;"]')
    // `end` is a Mermaid keyword: the node gets another id, the label keeps the agent's.
    expect(mermaid).toContain('  n_end["end: docs"]')
    expect(mermaid).toContain('  A --> B')
    expect(mermaid).toContain('  B -.-> C')
    expect(mermaid).toContain('  D --> n_end')
    for (const status of ['pending', 'in_progress', 'completed', 'failed', 'needs_input']) {
      expect(mermaid).toMatch(new RegExp(`^  classDef ${status} fill:#[0-9a-f]{6},stroke:#[0-9a-f]{6},color:#[0-9a-f]{6}$`, 'm'))
    }
    expect(mermaid).toContain('  class A completed')
    expect(mermaid).toContain('  class B in_progress')
    expect(mermaid).toContain('  class C needs_input')
    expect(mermaid).toContain('  class D failed')
    expect(mermaid).toContain('  class n_end pending')
    const fills = [...mermaid.matchAll(/classDef \w+ fill:(#[0-9a-f]{6})/g)].map((m) => m[1])
    expect(new Set(fills).size).toBe(5)
  })

  it('gives ids Mermaid would misread a safe, unique name', () => {
    const plan = parsePlan(
      '# P\n\n## Agents\n\n### api-client: a\n- **depends_on**: []\n\n### api_client: b\n- **depends_on**: [api-client]\n\n### ops: c\n- **depends_on**: [api_client]\n',
      'p.md'
    )
    const mermaid = renderMermaid(plan)
    expect(mermaid).toContain('n_api_client["api-client: a"]')
    expect(mermaid).toContain('  api_client["api_client: b"]')
    expect(mermaid).toContain('  n_ops["ops: c"]')
    expect(mermaid).toContain('  n_api_client --> api_client')
    expect(mermaid).toContain('  api_client --> n_ops')
  })
})

describe('upsertMermaidBlock', () => {
  const mermaid = 'flowchart TD\n  A --> B\n'
  const ascii = '## DAG Visualization\n```\nA ──→ B\n```\n\n'
  const m = mermaidMarker

  it('adds a block after the hand-drawn picture, keeping it and the blank lines before the next section', () => {
    expect(upsertMermaidBlock(ascii, mermaid, '\n')).toBe('## DAG Visualization\n```\nA ──→ B\n```\n\n```mermaid\nflowchart TD\n' + m + '\n  A --> B\n```\n\n')
  })

  it('replaces the block it wrote before and nothing else', () => {
    const once = upsertMermaidBlock(ascii, mermaid, '\n')
    const twice = upsertMermaidBlock(once, 'flowchart TD\n  A --> C\n', '\n')
    expect(twice).toBe('## DAG Visualization\n```\nA ──→ B\n```\n\n```mermaid\nflowchart TD\n' + m + '\n  A --> C\n```\n\n')
    expect(upsertMermaidBlock(twice, 'flowchart TD\n  A --> C\n', '\n')).toBe(twice)
  })

  it('keeps a Mermaid picture the person drew and adds its own after it', () => {
    const drawn = '## DAG Visualization\n```mermaid\ngraph LR\n  A --> B\n```\n'
    const once = upsertMermaidBlock(drawn, mermaid, '\n')
    expect(once).toBe(drawn + '\n```mermaid\nflowchart TD\n' + m + '\n  A --> B\n```\n')
    expect(upsertMermaidBlock(once, 'flowchart TD\n  A --> C\n', '\n')).toBe(drawn + '\n```mermaid\nflowchart TD\n' + m + '\n  A --> C\n```\n')
  })

  it('does not take a mermaid fence inside another fence', () => {
    const section = '## DAG Visualization\n````md\n```mermaid\nold\n```\n````\n'
    expect(upsertMermaidBlock(section, mermaid, '\n')).toBe(section + '\n```mermaid\nflowchart TD\n' + m + '\n  A --> B\n```\n')
  })

  it('keeps CRLF line endings', () => {
    const crlf = ascii.replace(/\n/g, '\r\n')
    const result = upsertMermaidBlock(crlf, mermaid, '\r\n')
    expect(result).toBe('## DAG Visualization\r\n```\r\nA ──→ B\r\n```\r\n\r\n```mermaid\r\nflowchart TD\r\n' + m + '\r\n  A --> B\r\n```\r\n\r\n')
    expect(result.replace(/\r\n/g, '')).not.toContain('\n')
    expect(upsertMermaidBlock(result, mermaid, '\r\n')).toBe(result)
  })

  it('keeps a missing final newline at the end of the file', () => {
    expect(upsertMermaidBlock('## DAG Visualization\nA -> B', mermaid, '\n')).toBe('## DAG Visualization\nA -> B\n\n```mermaid\nflowchart TD\n' + m + '\n  A --> B\n```')
  })

  it('makes the section when there is none', () => {
    expect(upsertMermaidBlock(undefined, mermaid, '\n')).toBe('## DAG Visualization\n\n```mermaid\nflowchart TD\n' + m + '\n  A --> B\n```\n')
  })
})
