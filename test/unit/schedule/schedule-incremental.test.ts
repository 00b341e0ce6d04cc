import {describe, expect, it} from 'vitest'
import {assessAgents, type RunView} from '../../../src/schedule/assess-agents.js'
import {updateAssessments} from '../../../src/schedule/assessment-cache.js'
import type {Status} from '../../../src/plan/types.js'
import type {RowState} from '../../../src/store/table-state.js'
import {simAgent} from '../../helpers/exec-sim.js'

/**
 * A scheduling pass brings the last pass's assessments up to date (issue 24): it assesses again only the
 * agents whose own state changed and the dependants that read them differently, and gives what a pass
 * over every agent gives. (The model-based test checks that equality after every step of random runs.)
 */
describe('assessments kept between passes', () => {
  // A thousand agents, each depending on one or two of the ten before it.
  const agents = Array.from({length: 1000}, (_, i) => simAgent(`T${i}`, i === 0 ? [] : [...new Set([`T${Math.max(0, i - 1 - (i % 7))}`, `T${Math.max(0, i - 1 - (i % 10))}`])]))
  const rows = new Map<string, RowState>(agents.map((a) => [a.id, {status: 'pending', agentId: '', duration: '', notes: '', extra: {}}]))
  const running = new Set<string>()
  const view = (): RunView => ({
    agents,
    status: {get: (id) => rows.get(id)?.status as Status | undefined},
    running,
    attemptsUsed: new Map(),
    attemptLimit: () => 2,
    answered: new Set(),
    filesCreated: new Set()
  })
  const filesCreated = new Set<string>()
  const live = {inputs: (id: string) => ({row: rows.get(id), running: running.has(id), answered: false, limit: 2})}
  const set = (id: string, status: Status) => rows.set(id, {...rows.get(id)!, status})

  it('assesses again only what an event changed, and agrees with a pass from scratch', () => {
    const v = {...view(), filesCreated}
    let cache = updateAssessments(undefined, v, live)
    expect(cache.touched.size).toBe(1000)
    cache.touched.clear()
    // Agents complete one by one, in order: each event looks again at a handful of agents, not a thousand.
    for (let i = 0; i < 300; i++) {
      set(`T${i}`, 'completed')
      cache = updateAssessments(cache, v, live)
      expect(cache.touched.size, `T${i}`).toBeLessThan(30)
      cache.touched.clear()
    }
    expect(cache.assessments).toEqual(assessAgents(v))
    expect([...cache.ready]).toEqual([...assessAgents(v)].filter(([, a]) => a.kind === 'ready').map(([id]) => id))
    // A failure blocks everything downstream: that is what changed, so that is what is looked at again.
    set('T300', 'failed')
    const failed: RunView = {...v, attemptsUsed: new Map([['T300', 2]])}
    cache = updateAssessments(cache, failed, live)
    expect(cache.assessments).toEqual(assessAgents(failed))
    expect(cache.assessments.get('T999')?.kind).toBe('blocked')
  })
})
