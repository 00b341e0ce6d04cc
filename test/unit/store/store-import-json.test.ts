import fs from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {importStateJson, StateJsonError} from '../../../src/store/import-state-json.js'
import {PlanStore} from '../../../src/store/plan-store.js'
import {copyFixture, storeFixtures, tickingClock} from '../../helpers/store-fixture.js'

const plan = parsePlan(fs.readFileSync(path.join(storeFixtures, 'basic/plan.md'), 'utf8'), 'plan.md')

describe('importStateJson', () => {
  it('maps the keyed shape', () => {
    const state = importStateJson(
      {
        started: '2026-01-15T14:22:10Z',
        last_updated: '2026-01-15T14:45:33Z',
        build: {status: 'pass'},
        agents: {
          A: {status: 'completed', agent_id: 'agent-abc123', duration_ms: 45_000, attempts: 1},
          B: {status: 'running', agentId: 'agent-def456', notes: ['blocked by: A'], started_at: '…'},
          C: {status: 'failed', attempts: 2, error: 'tests failed'}
        }
      },
      plan
    )
    expect(state.rows.get('A')).toMatchObject({status: 'completed', agentId: 'agent-abc123', duration: '45s'})
    expect(state.rows.get('B')).toMatchObject({status: 'in_progress', agentId: 'agent-def456', notes: 'blocked by: A'})
    expect(state.rows.get('C')).toMatchObject({status: 'failed', notes: 'attempt 2: tests failed'})
    expect(state.rows.get('D')).toMatchObject({status: 'pending', notes: 'untouched, odd  spacing'})
    expect(state.meta).toMatchObject({started: '2026-01-15T14:22:10Z', lastUpdated: '2026-01-15T14:45:33Z', build: 'pass'})
  })

  it('maps the list shape, unknown agents included', () => {
    const state = importStateJson({agents: [{id: 'A', status: 'DONE', duration: '3m 05s'}, {id: 'Q', status: 'pending'}]}, plan)
    expect(state.rows.get('A')).toMatchObject({status: 'completed', duration: '3m 05s'})
    expect([...state.rows.keys()]).toEqual(['A', 'B', 'C', 'D', 'Q'])
  })

  it.each([
    [[], '(root): expected an object, got a list'],
    [{}, 'agents: missing'],
    [{agents: {A: {status: 'weird'}}}, 'agents.A.status: unknown status `weird`'],
    [{agents: [{status: 'pending'}]}, 'agents[0].id: every agent needs an `id` string'],
    [{agents: {A: {duration_ms: '5s'}}}, 'agents.A.duration_ms: expected milliseconds as a number']
  ])('%j is refused, naming the key', (json, message) => {
    expect(() => importStateJson(json, plan)).toThrow(StateJsonError)
    expect(() => importStateJson(json, plan)).toThrow(message)
  })

  it('leaves out keys it has no place for, naming each', () => {
    const left: string[] = []
    const state = importStateJson({agents: {A: {status: 'completed', colour: 'red'}}, owner: 'x'}, plan, (key) => left.push(key))
    expect(left).toEqual(['agents.A.colour', 'owner'])
    expect(state.rows.get('A')?.status).toBe('completed')
  })

  it('writes an import through the store like any other state', async () => {
    const file = copyFixture('basic')
    const store = await PlanStore.open(file, {now: tickingClock()})
    const state = importStateJson({agents: {A: {status: 'completed', agent_id: 'agent-abc123', duration_ms: 45_000}}, last_updated: '2026-01-15T15:00:00Z'}, store.plan)
    await store.write(state, {running: new Set()})
    const text = fs.readFileSync(file, 'utf8')
    expect(text).toContain('| A | completed | agent-abc123 | 45s | |')
    expect(text).toContain('Last updated: 2026-01-15T15:00:00Z')
    expect(text).toContain('| B |  pending   | — | — |  odd   spacing  |')
  })
})
