import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {validatePlan} from '../../../src/plan/validate-plan.js'
import {dependencyClosure} from '../../../src/plan/dependency-closure.js'
import {longestRemainingPath} from '../../../src/plan/longest-remaining-path.js'
import {criticalPath} from '../../../src/plan/critical-path.js'

/** A plan from `id: deps` pairs, e.g. `[['A', ''], ['B', 'A']]`. */
function plan(agents: Array<[string, string, string?]>): ReturnType<typeof parsePlan> {
  const body = agents.map(([id, deps, extra]) => `### ${id}: agent ${id}\n- **depends_on**: [${deps}]\n${extra ?? ''}- **prompt**: |\n    run ${id}\n`).join('\n')
  return parsePlan(`# G\n\n## Agents\n\n${body}`, 'g.md')
}

describe('dependency graph rules', () => {
  it('reports each cycle once, from its first agent in plan order', () => {
    const cycles = validatePlan(
      plan([
        ['A', 'B'],
        ['B', 'A'],
        ['C', 'E'],
        ['D', 'C'],
        ['E', 'D'],
        ['F', 'A, C']
      ])
    ).filter((d) => d.rule === 'dependency-cycle')
    expect(cycles.map((d) => d.reason.split(':')[1]!.trim())).toEqual(['A → B → A', 'C → E → D → C'])
  })

  it('a diamond is not a cycle, and its two middle agents may not share a file', () => {
    const diamond = plan([
      ['A', ''],
      ['B', 'A', '- **modifies**: [`x.ts`]\n'],
      ['C', 'A', '- **modifies**: [`x.ts`]\n'],
      ['D', 'B, C', '- **modifies**: [`x.ts`]\n']
    ])
    const rules = validatePlan(diamond).filter((d) => d.severity === 'error').map((d) => d.rule)
    expect(rules).toEqual(['file-conflict'])
    const closure = dependencyClosure(diamond.agents)
    expect(closure.concurrent('B', 'C')).toBe(true)
    expect(closure.concurrent('A', 'D')).toBe(false)
    expect(closure.ancestors('D')).toEqual(['A', 'B', 'C'])
  })

  it('handles a chain of 3000 agents without overflowing the stack', () => {
    const chain: Array<[string, string]> = Array.from({length: 3000}, (_, i) => [`N${i}`, i === 0 ? '' : `N${i - 1}`])
    const long = plan(chain)
    expect(validatePlan(long)).toEqual([{severity: 'info', rule: 'missing-state-section', reason: expect.any(String), file: 'g.md'}])
    expect(longestRemainingPath(long).get('N0')).toBe(3000)
    expect(criticalPath(long).agents).toHaveLength(3000)
    expect(dependencyClosure(long.agents).dependsOn('N2999', 'N0')).toBe(true)
  })
})
