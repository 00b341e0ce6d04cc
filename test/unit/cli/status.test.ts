import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {registerStatus} from '../../../src/cli/commands/status.js'
import {loadPlan} from '../../../src/plan/load-plan.js'
import {agentReadiness} from '../../../src/plan/agent-readiness.js'
import {criticalPath} from '../../../src/plan/critical-path.js'
import {longestRemainingPath} from '../../../src/plan/longest-remaining-path.js'
import type {PlanStatus} from '../../../src/plan/plan-status.js'
import {runCommand} from '../../helpers/plan-cli-harness.js'

const fixtures = fileURLToPath(new URL('../../../fixtures/', import.meta.url))
const mixed = join(fixtures, 'parse', 'status-mixed')

function golden(file: string, actual: string): void {
  if (process.env.UPDATE || !existsSync(file)) writeFileSync(file, actual)
  expect(actual).toBe(readFileSync(file, 'utf8'))
}

describe('mdplan status', () => {
  it('prints counts, ready, blocked (failed upstream called out), critical path and meta lines', async () => {
    const result = await runCommand(registerStatus, ['status', 'plan.md'], mixed)
    expect(result.code).toBe(0)
    expect(result.stderr).toBe('')
    golden(join(mixed, 'status.txt'), result.stdout)
    expect(result.stdout).toContain('Critical path: A → B → D → E (14m 00s)')
  })

  it('--json prints the same facts as one object', async () => {
    const result = await runCommand(registerStatus, ['status', 'plan.md', '--json'], mixed)
    expect(result.code).toBe(0)
    golden(join(mixed, 'status.json'), result.stdout)
    const status = JSON.parse(result.stdout) as PlanStatus
    expect(status.counts).toEqual({pending: 4, in_progress: 1, completed: 1, failed: 1, needs_input: 1, awaiting_review: 0})
    expect(status.ready).toEqual([])
    expect(status.blocked.map((b) => b.id)).toEqual(['D', 'E', 'G', 'H'])
    expect(status.blocked.find((b) => b.id === 'D')).toEqual({id: 'D', by: [{id: 'B', status: 'failed'}], failedUpstream: ['B']})
    expect(status.blocked.find((b) => b.id === 'E')!.failedUpstream).toEqual(['B'])
    expect(status.needsInput).toEqual([{id: 'F', question: 'Which docs site, Docusaurus or MkDocs?'}])
    expect(status.criticalPath).toEqual({agents: ['A', 'B', 'D', 'E'], weight: 14 * 60_000, unit: 'ms'})
    expect(status.build).toBe('fail (2 attempts)')
    expect(status.meta.tests).toBe('not yet run')
  })

  it('a plan with no table: every agent pending, roots ready, critical path by count when estimates are missing', async () => {
    const result = await runCommand(registerStatus, ['status', 'plan.md', '--json'], join(fixtures, 'parse', 'no-state-section'))
    const status = JSON.parse(result.stdout) as PlanStatus
    expect(status.ready).toEqual(['A'])
    expect(status.blocked).toEqual([{id: 'B', by: [{id: 'A', status: 'pending'}], failedUpstream: []}])
    expect(status.criticalPath).toEqual({agents: ['A', 'B'], weight: 2, unit: 'agents'})
    expect(status.started).toBeNull()
  })

  it('a two-file plan whose prompts file is missing still shows its status (the file alone is enough)', async () => {
    const result = await runCommand(registerStatus, ['status', 'plan.md'], join(fixtures, 'validate', 'missing-prompts-file'))
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('Ready now:     A')
    expect(result.stdout).toContain('1 problem in the plan: run `mdplan validate plan.md`')
  })

  for (const bad of ['malformed-table', 'unterminated-fence', 'no-agents-section', 'empty-file', 'binary-file', 'not-a-file', 'file-not-found']) {
    it(`bad input (${bad}): one clear message on stderr, exit 2`, async () => {
      const result = await runCommand(registerStatus, ['status', 'plan.md'], join(fixtures, 'validate', bad))
      expect(result.code).toBe(2)
      expect(result.stdout).toBe('')
      expect(result.stderr.trim().split('\n')).toHaveLength(1)
      expect(result.stderr).toMatch(/^plan\.md(:\d+:\d+)?: .+ \[[a-z-]+\]\n$/)
    })
  }
})

describe('scheduling helpers', () => {
  it('longestRemainingPath weighs estimates when every agent has one', async () => {
    const plan = await loadPlan('plan.md', {cwd: mixed})
    const lrp = longestRemainingPath(plan)
    expect(lrp.get('A')).toBe((2 + 5 + 4 + 3) * 60_000)
    expect(lrp.get('C')).toBe((1 + 3) * 60_000)
    expect(lrp.get('F')).toBe(50_000)
    expect(lrp.get('E')).toBe(3 * 60_000)
  })

  it('longestRemainingPath counts agents when any estimate is missing', async () => {
    const plan = await loadPlan('plan.md', {cwd: join(fixtures, 'validate', 'valid')})
    expect(Object.fromEntries(longestRemainingPath(plan))).toEqual({A: 3, B: 2, C: 1})
  })

  it('criticalPath and agentReadiness survive a cycle', async () => {
    const plan = await loadPlan('plan.md', {cwd: join(fixtures, 'validate', 'dependency-cycle')})
    expect(criticalPath(plan).agents.length).toBeGreaterThan(0)
    const readiness = agentReadiness(plan)
    expect(readiness.get('A')).toEqual({status: 'pending', ready: false, blockedBy: [{id: 'C', status: 'pending'}]})
  })
})
