import {describe, expect, it} from 'vitest'
import type {Agent, Status} from '../../../src/plan/types.js'
import {assessAgents, type RunView} from '../../../src/schedule/assess-agents.js'
import {nextLaunches} from '../../../src/schedule/next-launches.js'

const span = {start: {line: 1, column: 1, offset: 0}, end: {line: 1, column: 1, offset: 0}}

/** `dag('A', 'B<A', 'C<A,B', 'D~C')`: `<` hard dependencies, `~` soft ones. */
function dag(...specs: string[]): Agent[] {
  return specs.map((spec) => {
    const [head, soft = ''] = spec.split('~')
    const [id, hard = ''] = head!.split('<')
    const refs = (list: string) => list.split(',').filter(Boolean).map((dep) => ({id: dep, position: span}))
    return {
      id: id!,
      name: id!.toLowerCase(),
      position: span,
      section: span,
      dependsOn: refs(hard),
      softDependsOn: refs(soft),
      creates: [],
      modifies: [],
      deletes: [],
      fields: {}
    }
  })
}

function view(agents: Agent[], overrides: Partial<RunView> & {statuses?: Record<string, Status>} = {}): RunView {
  return {
    agents,
    status: new Map(Object.entries(overrides.statuses ?? {})),
    running: overrides.running ?? new Set(),
    attemptsUsed: overrides.attemptsUsed ?? new Map(),
    attemptLimit: overrides.attemptLimit ?? (() => 3),
    answered: overrides.answered ?? new Set(),
    filesCreated: overrides.filesCreated ?? new Set()
  }
}

const kinds = (v: RunView) => Object.fromEntries([...assessAgents(v)].map(([id, a]) => [id, a.kind]))

describe('assessAgents', () => {
  it('launches agents as soon as their own dependencies are done (swim lanes, not waves)', () => {
    const agents = dag('A', 'B', 'C<A', 'D<B')
    expect(kinds(view(agents, {statuses: {A: 'completed'}, running: new Set(['B'])}))).toEqual({
      A: 'done',
      B: 'running',
      C: 'ready',
      D: 'waiting'
    })
  })

  it('blocks dependents of an agent that failed for good, transitively, and leaves others alone', () => {
    const agents = dag('A', 'B<A', 'C<B', 'D')
    const v = view(agents, {statuses: {A: 'failed'}, attemptsUsed: new Map([['A', 3]])})
    const result = assessAgents(v)
    expect(result.get('A')).toEqual({kind: 'failed'})
    expect(result.get('B')).toEqual({kind: 'blocked', by: [{id: 'A', why: 'failed'}]})
    expect(result.get('C')).toEqual({kind: 'blocked', by: [{id: 'B', why: 'blocked'}]})
    expect(result.get('D')).toEqual({kind: 'ready', resume: 'fresh'})
  })

  it('retries a failed agent while attempts remain', () => {
    const agents = dag('A', 'B<A')
    expect(assessAgents(view(agents, {statuses: {A: 'failed'}, attemptsUsed: new Map([['A', 1]])})).get('A')).toEqual({
      kind: 'ready',
      resume: 'retry'
    })
  })

  it('waits on a question until it is answered, then resumes it', () => {
    const agents = dag('A', 'B<A')
    expect(kinds(view(agents, {statuses: {A: 'needs_input'}}))).toEqual({A: 'needs-input', B: 'blocked'})
    expect(assessAgents(view(agents, {statuses: {A: 'needs_input'}, answered: new Set(['A'])})).get('A')).toEqual({
      kind: 'ready',
      resume: 'answer'
    })
  })

  it('meets a soft dependency once its files exist, even while it runs', () => {
    const agents = dag('A', 'B~A')
    expect(kinds(view(agents, {running: new Set(['A'])}))).toEqual({A: 'running', B: 'waiting'})
    expect(kinds(view(agents, {running: new Set(['A']), filesCreated: new Set(['A'])}))).toEqual({
      A: 'running',
      B: 'ready'
    })
  })

  it('never lets a soft dependency that cannot finish block anyone', () => {
    const agents = dag('A', 'B~A')
    const v = view(agents, {statuses: {A: 'failed'}, attemptsUsed: new Map([['A', 3]])})
    expect(kinds(v)).toEqual({A: 'failed', B: 'ready'})
  })

  it('survives a cycle that slipped past validation', () => {
    const agents = dag('A<B', 'B<A')
    expect(kinds(view(agents))).toEqual({A: 'blocked', B: 'blocked'})
  })
})

describe('nextLaunches', () => {
  it('fills free slots, longest remaining path first, ties in plan order', () => {
    const agents = dag('A', 'B', 'C', 'D')
    const assessments = assessAgents(view(agents))
    const priority = new Map([
      ['A', 1],
      ['B', 5],
      ['C', 5],
      ['D', 2]
    ])
    expect(nextLaunches({order: ['A', 'B', 'C', 'D'], assessments, runningCount: 1, concurrency: 3, priority})).toEqual([
      'B',
      'C'
    ])
    expect(nextLaunches({order: ['A', 'B', 'C', 'D'], assessments, runningCount: 3, concurrency: 3, priority})).toEqual([])
  })
})

describe('simulateRun', () => {
  it('orders launches like the scheduler and reports the makespan', async () => {
    const {simulateRun} = await import('../../../src/schedule/simulate-run.js')
    const agents = dag('A', 'B', 'C<A', 'D<B')
    agents[0]!.estimatedMs = 100
    agents[1]!.estimatedMs = 10
    agents[2]!.estimatedMs = 100
    agents[3]!.estimatedMs = 10
    const priority = new Map([
      ['A', 200],
      ['B', 20],
      ['C', 100],
      ['D', 10]
    ])
    const result = simulateRun({agents, status: new Map([['B', 'completed']]), concurrency: 1, priority})
    expect(result.launches.map((l) => [l.agent, l.start])).toEqual([
      ['A', 0],
      ['C', 100],
      ['D', 200]
    ])
    expect(result.makespan).toBe(210)
    expect(result.unit).toBe('ms')
  })
})
