import {describe, expect, it} from 'vitest'
import type {ExecEffect} from '../../../src/executor/exec-effect.js'
import {renderNotes} from '../../../src/executor/row-notes.js'
import {ExecSim, simAgent} from '../../helpers/exec-sim.js'
import type {RowState} from '../../../src/store/table-state.js'

type Spawn = Extract<ExecEffect, {type: 'spawn'}>

/** A → B, A's work gated by a review; every spawn and check kept. */
function world(options: {git?: boolean; rows?: Map<string, RowState>} = {}) {
  const sim = new ExecSim([simAgent('A', []), simAgent('B', ['A'])], 2, {git: options.git ?? true, gated: new Set(['A']), ...(options.rows ? {rows: options.rows} : {})})
  const spawns: Spawn[] = []
  const checks: Array<Extract<ExecEffect, {type: 'check'}>> = []
  const perform = sim.perform.bind(sim)
  sim.perform = (effect) => {
    if (effect.type === 'spawn') spawns.push(effect)
    if (effect.type === 'check') checks.push(effect)
    perform(effect)
  }
  /** Complete writes, git setups, checks and approvals until none is left. */
  const settle = () => {
    for (let round = 0; round < 50; round++) if (!(sim.completeWrite(true) || sim.completePrepare(0, false) || sim.completeCheck(0, false) || sim.completeApprove(0, false) || sim.completeLook())) return
  }
  const status = (id: string) => sim.state.table.rows.get(id)?.status
  const notes = (id: string) => renderNotes(sim.state.table.rows.get(id)!.notes)
  return {sim, spawns, checks, settle, status, notes}
}

/** A launched, completed and checked: awaiting review, the run still looking at the file (it has not ended). */
function untilAwaiting(w: ReturnType<typeof world>): void {
  w.sim.dispatch({type: 'start'})
  w.settle()
  w.sim.exit(0, 'success')
  w.sim.completeWrite(true)
  w.sim.completeCheck(0, false)
  w.sim.completeWrite(true)
}

describe('a review gate in the executor', () => {
  it('holds the completed work unmerged, awaiting review, and starts nothing on it; the run ends', () => {
    const w = world()
    w.sim.dispatch({type: 'start'})
    w.settle()
    w.sim.exit(0, 'success')
    w.settle()
    // The check keeps the work unmerged (`hold`), and the row says why it waits.
    expect(w.checks).toEqual([expect.objectContaining({agent: 'A', succeeded: true, hold: true})])
    expect(w.status('A')).toBe('awaiting_review')
    expect(w.notes('A')).toMatch(/review: waiting$/)
    expect(w.status('B')).toBe('pending')
    expect(w.notes('B')).toBe('blocked by: A (awaiting review)')
    expect(w.sim.finished).toBe(true)
    expect(w.spawns.map((s) => s.agent)).toEqual(['A'])
    expect(w.sim.events).toContain('awaiting-review')
    expect(w.sim.violations).toEqual([])
  })

  it('on approval merges the held work first, then starts the dependant; the row records it', () => {
    const w = world()
    untilAwaiting(w)
    expect(w.status('A')).toBe('awaiting_review')
    // A person approves while the run goes on: the run merges A's work before B may start.
    expect(w.sim.review(0, true)).toBe(true)
    w.sim.completeWrite(true)
    expect(w.sim.state.approving.has('A')).toBe(true)
    expect(w.sim.approves).toEqual(['A'])
    expect(w.sim.state.attempts.has('B')).toBe(false)
    w.sim.completeApprove(0, false)
    expect(w.status('A')).toBe('completed')
    expect(w.notes('A')).toMatch(/commit: abc999; review: approved$/)
    expect(w.sim.state.attempts.has('B')).toBe(true)
    w.settle()
    w.sim.exit(0, 'success')
    w.settle()
    expect(w.status('B')).toBe('completed')
    expect(w.spawns.map((s) => s.agent)).toEqual(['A', 'B'])
    expect(w.sim.violations).toEqual([])
  })

  it('on rejection runs the agent again, resuming its session with the note, and uses no attempt', () => {
    const w = world()
    untilAwaiting(w)
    // Sent back while the run still looks at the file (its last look before it ends).
    expect(w.sim.review(0, false)).toBe(true)
    w.settle()
    expect(w.spawns).toHaveLength(2)
    const again = w.spawns[1]!
    expect(again).toMatchObject({agent: 'A', attempt: 2, review: 'use tabs', resumeKind: 'review', resumeSession: w.spawns[0]!.agentId})
    expect(w.notes('A')).toContain('review: rejected: use tabs')
    expect(w.sim.state.table.rows.get('A')!.notes.attempts.size).toBe(0)
    w.sim.exit(0, 'success')
    w.settle()
    // Gated again: the new work waits for review as the first did.
    expect(w.status('A')).toBe('awaiting_review')
    expect(w.notes('A')).not.toContain('rejected')
    expect(w.spawns.map((s) => s.agent)).toEqual(['A', 'A'])
    expect(w.sim.violations).toEqual([])
  })

  it('a retry after the rerun failed still carries the note, after what failed', () => {
    const rows = new Map<string, RowState>([['A', {status: 'pending', agentId: 'x-1', duration: '5s', notes: 'review: rejected: use tabs', extra: {}}]])
    const w = world({rows})
    w.sim.dispatch({type: 'start'})
    w.settle()
    w.sim.exit(0, 'fail')
    w.settle()
    expect(w.spawns.map((s) => [s.attempt, s.resumeKind, s.review, s.retry?.previousFailure])).toEqual([
      [1, 'review', 'use tabs', undefined],
      [2, 'retry', 'use tabs', 'tests failed']
    ])
    expect(w.spawns[1]!.resumeSession).toBeUndefined()
  })

  it('acts on a rejection written while no run was going on: the next run sends the note', () => {
    const rows = new Map<string, RowState>([['A', {status: 'pending', agentId: 'x-1', duration: '5s', notes: 'result: done; review: rejected: use tabs', extra: {}}]])
    const w = world({rows})
    w.sim.dispatch({type: 'start'})
    w.settle()
    expect(w.spawns).toEqual([expect.objectContaining({agent: 'A', review: 'use tabs', resumeSession: 'x-1', resumeKind: 'review'})])
  })

  it('merges an approval made while no run was going on before anything starts on it', () => {
    const rows = new Map<string, RowState>([['A', {status: 'completed', agentId: 'x-1', duration: '5s', notes: 'review: waiting', extra: {}}]])
    const w = world({rows})
    w.sim.dispatch({type: 'start'})
    expect(w.sim.approves).toEqual(['A'])
    w.sim.completeWrite(true)
    expect(w.sim.state.attempts.size).toBe(0)
    w.settle()
    expect(w.spawns.map((s) => s.agent)).toEqual(['B'])
    expect(w.notes('A')).toMatch(/review: approved$/)
  })

  it('fails an approved agent whose merge conflicts, and retries it (a fresh attempt)', () => {
    const rows = new Map<string, RowState>([['A', {status: 'completed', agentId: 'x-1', duration: '5s', notes: 'review: waiting', extra: {}}]])
    const w = world({rows})
    w.sim.dispatch({type: 'start'})
    w.sim.completeApprove(0, true)
    expect(w.status('A')).toBe('in_progress')
    expect(w.notes('A')).toContain('attempt 1: merge conflict in x')
    expect(w.sim.state.attempts.get('A')!.resumeKind).toBe('retry')
    expect(w.sim.violations).toEqual([])
  })

  it('holds the work without git too: awaiting review, no check', () => {
    const w = world({git: false})
    w.sim.dispatch({type: 'start'})
    w.settle()
    w.sim.exit(0, 'success')
    w.settle()
    expect(w.checks).toEqual([])
    expect(w.status('A')).toBe('awaiting_review')
    expect(w.sim.finished).toBe(true)
  })
})
