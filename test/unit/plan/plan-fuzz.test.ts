import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {checkPlan} from '../../../src/plan/check-plan.js'
import {planStatus} from '../../../src/plan/plan-status.js'
import {formatDiagnostic} from '../../../src/cli/format-diagnostic.js'
import {allSpans} from '../../helpers/plan-project.js'

// Lines a plan is made of, and lines that break it: shuffled, the parser must never throw.
const lines = [
  '---',
  'runner: shell',
  'concurrency: [',
  '# Parallel Plan: X',
  '## Agents',
  '## Execution State',
  '## Pre-Execution Verification',
  '## Open Questions',
  '### A: first',
  '### B: second',
  '### A: again',
  '### Amendments',
  '- **depends_on**: [A, B]',
  '- **depends_on**: [A',
  '- **soft_depends_on**: —',
  '- **creates**: [`a/[id]/b.ts`, x (y)]',
  '- **modifies**: ../out.ts',
  '- **prompt**: |',
  '- **prompt**:',
  '    indented prompt line',
  '  two-space line',
  '```',
  '```bash',
  '~~~',
  '| Agent | Status | Agent ID | Duration | Notes |',
  '|-------|--------|----------|----------|-------|',
  '|---|',
  '| A | pending | — | — | |',
  '| B | weird | x \\| y |',
  'A | completed',
  'Started: 2026-01-15T14:22:10Z',
  '**Prompts:** prompts.md',
  '<!-- comment',
  '',
  '',
  'text'
]

describe('parsePlan never throws', () => {
  it('on any arrangement of plan-like lines, and every span stays inside the text', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...lines), {maxLength: 60}), fc.constantFrom('\n', '\r\n'), fc.boolean(), (picked, eol, bom) => {
        const source = (bom ? '\uFEFF' : '') + picked.join(eol)
        const plan = parsePlan(source, 'fuzz.md', {file: 'prompts.md', source: '## A: first\n\nprompt\n'})
        for (const d of checkPlan(plan)) expect(formatDiagnostic(d)).toMatch(/^fuzz\.md|^prompts\.md/)
        planStatus(plan)
        for (const {span, file} of allSpans(plan, plan.file)) {
          if (file !== plan.file) continue
          expect(span.start.offset).toBeLessThanOrEqual(span.end.offset)
          expect(span.end.offset).toBeLessThanOrEqual(plan.text.length)
        }
      }),
      {numRuns: Number(process.env.FUZZ_RUNS ?? 300)}
    )
  })
})
