import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {registerStatus} from '../../../src/cli/commands/status.js'
import {registerReport} from '../../../src/cli/commands/report.js'
import {registerValidate} from '../../../src/cli/commands/validate.js'
import type {PlanStatus} from '../../../src/plan/plan-status.js'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {stateDiff} from '../../../src/diff/state-diff.js'
import {formatStateDiff} from '../../../src/diff/format-state-diff.js'
import {renderMermaid} from '../../../src/report/render-mermaid.js'
import {runCommand} from '../../helpers/plan-cli-harness.js'
import {reviewPlan} from '../../helpers/review-plan.js'

const plan = (rowA: string, rowC = '| C | needs_input | c-1 | 3s | question: Redis or SQLite? |') =>
  reviewPlan({
    front: ['review: false'],
    agents: [{id: 'A', name: 'api', review: 'true'}, {id: 'B', name: 'ui', deps: ['A']}, {id: 'C', name: 'cache'}],
    rows: [rowA, '| B | pending | — | — | blocked by: A (awaiting review) |', rowC]
  })

const waiting = '| A | awaiting_review | a-1 | 12s | result: added the route; review: waiting |'

function folder(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'mdplan-review-views-'))
  writeFileSync(join(dir, 'plan.md'), text)
  return dir
}

describe('the views of work awaiting review', () => {
  it('status lists it, with the question, under "needs you", with the commands that answer them', async () => {
    const dir = folder(plan(waiting))
    const text = await runCommand(registerStatus, ['status', 'plan.md'], dir)
    expect(text.code).toBe(0)
    expect(text.stdout).toContain('3 agents: 1 pending, 1 needs_input, 1 awaiting_review\n')
    expect(text.stdout).toContain('Needs input:   C — Redis or SQLite?\n')
    expect(text.stdout).toContain('Needs review:  A — added the route\n')
    expect(text.stdout).toContain('Needs you:     mdplan answer plan.md C "…"; mdplan review plan.md A --approve (or --reject "why")\n')
    expect(text.stdout).toContain('  B by A (awaiting_review)\n')
    const json = JSON.parse((await runCommand(registerStatus, ['status', 'plan.md', '--json'], dir)).stdout) as PlanStatus
    expect(json.awaitingReview).toEqual([{id: 'A', result: 'added the route'}])
    expect(json.counts.awaiting_review).toBe(1)
  })

  it('validate accepts the gate, its status and its notes', async () => {
    const result = await runCommand(registerValidate, ['validate', 'plan.md'], folder(plan(waiting)))
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
  })

  it('report shows the status and counts it', async () => {
    const result = await runCommand(registerReport, ['report', 'plan.md'], folder(plan(waiting)))
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/\nA +api +awaiting_review +1 +12s\n/)
    expect(result.stdout).toMatch(/Agents +1 pending, 1 needs_input, 1 awaiting_review\n/)
  })

  it('diff shows the gate and its approval as status changes', () => {
    const before = parsePlan(plan('| A | in_progress | a-1 | — | |'), 'plan.md')
    const gated = parsePlan(plan(waiting), 'plan.md')
    expect(formatStateDiff(stateDiff(before, gated), 'plan.md', 'HEAD')).toBe(
      'plan.md since HEAD: 1 agent changed (1 awaiting_review)\nA  in_progress → awaiting_review  12s  result: added the route; review: waiting\n'
    )
    const approved = parsePlan(plan('| A | completed | a-1 | 12s | result: added the route; review: approved |'), 'plan.md')
    expect(formatStateDiff(stateDiff(gated, approved), 'plan.md', 'HEAD')).toContain('A  awaiting_review → completed')
  })

  it('graph colours it apart', () => {
    const mermaid = renderMermaid(parsePlan(plan(waiting), 'plan.md'))
    expect(mermaid).toContain('  classDef awaiting_review fill:#fbefff,stroke:#8250df,color:#6639ba\n')
    expect(mermaid).toContain('  class A awaiting_review\n')
  })
})
