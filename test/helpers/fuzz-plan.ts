import fc from 'fast-check'

/** Lines that look like plan syntax, so random documents reach deep into the parser. */
export const planLine = fc.oneof(
  fc.constantFrom(
    '---',
    'runner: shell',
    'concurrency: 4',
    'concurrency: many',
    'agent_timeout: 5x',
    '# Parallel Plan: fuzz',
    '## Agents',
    '## Context',
    '## Execution State',
    '## Open Questions',
    '## Pre-Execution Verification',
    '## DAG Visualization',
    '### A: first',
    '### B: second',
    '### B2: split',
    '### A: duplicate',
    '### : no id',
    '### 9: bad id',
    '- **depends_on**: [A, B]',
    '- **depends_on**: [Q]',
    '- **depends_on**: A, B2',
    '- depends on: none',
    '- **soft_depends_on**: [A]',
    '- **creates**: [`src/a.ts`, app/[id]/route.ts]',
    '- **modifies**: [`../outside.ts`, /etc/passwd]',
    '- **estimated_duration**: ~5 min',
    '- **estimated_duration**: forever',
    '- **prompt**: |',
    '    Do the thing.',
    '  two-space prompt line',
    '    ## Heading inside a prompt',
    '```',
    '```bash',
    '~~~',
    '````markdown',
    '| Agent | Status | Agent ID | Duration | Notes |',
    '|-------|--------|----------|----------|-------|',
    '|---|---|',
    '| A | pending | — | — | |',
    '| B | completed | agent-1 | 4s | note \\| with pipe |',
    '| A | done | x | y | z |',
    '| C | in_progress |',
    '| Agent | Status |',
    'Started: 2026-01-01T00:00:00Z',
    'Last updated: —',
    'Build: fail (2 attempts)',
    '**Prompts:** prompts.md',
    '<!-- comment -->',
    '<script>alert(1)</script>',
    '> quote',
    '',
    '\t'
  ),
  fc.string({maxLength: 40}),
  fc.string({unit: 'grapheme', maxLength: 20})
)

/** A small edit to a real plan. */
export const mutation = fc.oneof(
  fc.record({kind: fc.constant('delete-line' as const), at: fc.nat()}),
  fc.record({kind: fc.constant('duplicate-line' as const), at: fc.nat()}),
  fc.record({kind: fc.constant('swap-lines' as const), at: fc.nat(), to: fc.nat()}),
  fc.record({kind: fc.constant('insert' as const), at: fc.nat(), text: fc.oneof(fc.string({maxLength: 8}), planLine)}),
  fc.record({kind: fc.constant('replace-char' as const), at: fc.nat(), text: fc.constantFrom('|', '\\', '`', '#', '\n', '-', '[', ']', '*', ':', '\r', '\u0000', '\uFFFD', ' ')}),
  fc.record({kind: fc.constant('truncate' as const), at: fc.nat()})
)
export type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never

export function mutate(text: string, edits: Mutation[]): string {
  let out = text
  for (const edit of edits) {
    const lines = out.split('\n')
    const line = lines.length === 0 ? 0 : edit.at % lines.length
    const offset = out.length === 0 ? 0 : edit.at % (out.length + 1)
    switch (edit.kind) {
      case 'delete-line':
        lines.splice(line, 1)
        out = lines.join('\n')
        break
      case 'duplicate-line':
        lines.splice(line, 0, lines[line] ?? '')
        out = lines.join('\n')
        break
      case 'swap-lines': {
        const other = edit.to % lines.length
        ;[lines[line], lines[other]] = [lines[other]!, lines[line]!]
        out = lines.join('\n')
        break
      }
      case 'insert':
        out = out.slice(0, offset) + edit.text + out.slice(offset)
        break
      case 'replace-char':
        out = out.slice(0, offset) + edit.text + out.slice(offset + 1)
        break
      case 'truncate':
        out = out.slice(0, offset)
        break
    }
  }
  return out
}

