import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {planView, type PlanView} from '../../../src/serve/plan-view.js'
import {viewPatch} from '../../../src/serve/view-patch.js'
import {applyViewPatch} from '../../../src/serve/apply-view-patch.js'
import {readServedPlan} from '../../../src/serve/read-served-plan.js'

type Row = [id: string, status: string, notes?: string]

/** A plan of agents A0..An-1 (each after the one before), with a table of `rows` and meta lines. */
function planText(count: number, rows: Row[], extra: {updated?: string; question?: boolean; edges?: boolean} = {}): string {
  const agents = Array.from({length: count}, (_, i) => [`### A${i}: step ${i}`, `- **depends_on**: [${i > 0 && extra.edges !== false ? `A${i - 1}` : ''}]`, '- **prompt**: |', `    echo ${i}`, ''].join('\n'))
  const table = ['| Agent | Status | Agent ID | Duration | Notes |', '|---|---|---|---|---|', ...rows.map(([id, status, notes]) => `| ${id} | ${status} | — | — | ${notes ?? ''} |`)]
  const question = extra.question ? ['## Open Questions', '', '### A1: Which db?', '', 'Options:', '1. sqlite', '2. postgres', ''] : []
  return ['---', 'runner: shell', '---', '', '# Parallel Plan: patches', '', '## Agents', '', ...agents, '## Execution State', '', ...table, '', `Last updated: ${extra.updated ?? '—'}`, '', ...question].join('\n')
}

const view = (text: string): PlanView => planView(parsePlan(text, 'plan.md'), 'plan.md')
const rows = (statuses: string[]): Row[] => statuses.map((status, i) => [`A${i}`, status])
/** As the page gets it: through JSON. */
const wire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T

describe('a view sent as what changed', () => {
  it('a patch holds the changed rows only, and applied to the view before it makes the view after', () => {
    const before = view(planText(5, rows(['completed', 'in_progress', 'pending', 'pending', 'pending']), {updated: '10:00'}))
    const after = view(planText(5, rows(['completed', 'completed', 'in_progress', 'pending', 'failed']), {updated: '10:01'}))
    const patch = viewPatch(before, after)!
    expect(patch.agents.map((agent) => agent.id)).toEqual(['A1', 'A2', 'A4'])
    expect(patch.questions).toBeUndefined()
    expect(wire(applyViewPatch(wire(before), wire(patch)))).toEqual(wire(after))
    expect(patch.meta.lastUpdated).toBe('10:01')
    expect(patch.counts).toEqual({completed: 2, in_progress: 1, pending: 1, failed: 1})
  })

  it('a chain of patches, each from the last view sent, ends at the last view; nothing changed is an empty patch', () => {
    const statuses = Array.from({length: 30}, () => 'pending')
    let sent = view(planText(30, rows(statuses)))
    let page = wire(sent)
    for (let step = 0; step < 30; step++) {
      statuses[step] = 'completed'
      if (step + 1 < 30) statuses[step + 1] = 'in_progress'
      const next = view(planText(30, rows(statuses), {updated: `step ${step}`}))
      const patch = viewPatch(sent, next)!
      expect(patch.agents.length).toBeLessThanOrEqual(2)
      page = applyViewPatch(page, wire(patch))
      sent = next
    }
    expect(wire(page)).toEqual(wire(sent))
    expect(viewPatch(sent, sent)!.agents).toEqual([])
  })

  it('questions are sent when they change; another shape (an agent more, an edge less) takes the whole view', () => {
    const plain = view(planText(3, rows(['pending', 'needs_input', 'pending'])))
    const asked = view(planText(3, rows(['pending', 'needs_input', 'pending']), {question: true}))
    const patch = viewPatch(plain, asked)!
    expect(patch.questions?.map((q) => q.question)).toEqual(['Which db?'])
    expect(wire(applyViewPatch(plain, patch))).toEqual(wire(asked))
    expect(viewPatch(plain, view(planText(4, rows(['pending', 'needs_input', 'pending']))))).toBeUndefined()
    expect(viewPatch(plain, view(planText(3, rows(['pending', 'needs_input', 'pending']), {edges: false})))).toBeUndefined()
  })
})

let dir = ''
afterEach(() => rm(dir, {recursive: true, force: true}))

describe("the server's read of a plan it shows", () => {
  it('reads the table alone while only the table changed, and the view is the one a whole parse makes; any other edit parses again', async () => {
    dir = await mkdtemp(join(tmpdir(), 'mdplan-served-read-'))
    const file = join(dir, 'plan.md')
    await writeFile(file, planText(4, rows(['pending', 'pending', 'pending', 'pending'])))
    const first = await readServedPlan(file)
    expect(first.parsed).toBe(true)
    const written = planText(4, [['A0', 'completed', 'result: ok; host: h1'], ['A1', 'in_progress'], ['A2', 'skipped'], ['A3', 'pending']], {updated: '10:02'})
    await writeFile(file, written)
    const second = await readServedPlan(file, first)
    expect(second.parsed).toBe(false)
    expect(second.plan).toBe(first.plan)
    const quick = planView(second.plan, 'plan.md', {table: second.table})
    expect(wire(quick)).toEqual(wire(view(written)))
    expect(quick.agents.map((agent) => agent.status)).toEqual(['completed', 'in_progress', 'skipped', 'pending'])
    // An agent's definition edited: parsed again, and the view shows the edit.
    await writeFile(file, written.replace('### A3: step 3', '### A3: renamed'))
    const third = await readServedPlan(file, second)
    expect(third.parsed).toBe(true)
    expect(planView(third.plan, 'plan.md', {table: third.table}).agents[3]!.name).toBe('renamed')
  })
})
