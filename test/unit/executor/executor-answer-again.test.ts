import {describe, expect, it} from 'vitest'
import type {ExecEffect} from '../../../src/executor/exec-effect.js'
import {getNote} from '../../../src/plan/notes.js'
import {waitEnds} from '../../../src/executor/account-waits.js'
import {ExecSim, simAgent, type ExitKind} from '../../helpers/exec-sim.js'

type Spawn = Extract<ExecEffect, {type: 'spawn'}>

/** The executor's core around one agent, with every spawn it asks for kept. */
function world(rows?: ExecSim['disk']['rows']) {
  const sim = new ExecSim([simAgent('A', [])], 2, rows ? {rows} : {})
  const spawns: Spawn[] = []
  const perform = sim.perform.bind(sim)
  sim.perform = (effect) => {
    if (effect.type === 'spawn') spawns.push(effect)
    perform(effect)
  }
  /** Complete writes, git setups, checks and question entries until none is left (time passes a pause). */
  const settle = () => {
    for (let round = 0; round < 50; round++) {
      const moved = sim.completeWrite(true) || sim.completePrepare(0, false) || sim.completeCheck(0, false) || sim.completeQuestion()
      if (!moved) {
        // A pause of every launch (the network), or of the agent's account (a limit).
        const wake = Math.max(sim.state.pausedUntil, ...[...sim.state.waits.values()].map(waitEnds))
        if (wake <= sim.now) return
        sim.tick(wake - sim.now + 1)
      }
    }
  }
  return {sim, spawns, settle}
}

/** A asks, its question is written, a person answers, the resume launches and ends as `kind` (then Ctrl-C, with `abort`). */
function answeredThen(kind: ExitKind, abort = false) {
  const w = world()
  w.sim.dispatch({type: 'start'})
  w.settle()
  w.sim.exit(0, 'question')
  w.settle()
  expect(w.sim.answer(0)).toBe(true)
  w.settle()
  expect(w.spawns).toHaveLength(2)
  expect(w.spawns[1]!.answer?.answer).toBe('2')
  w.sim.exit(0, kind)
  if (abort) w.sim.dispatch({type: 'abort'})
  w.settle()
  return w
}

describe('an answer given to an attempt that could not use it', () => {
  it('goes to the relaunch when the session could not be resumed: whole prompt, the answer after it, never asked again', () => {
    const {sim, spawns} = answeredThen('unknown-session')
    expect(spawns).toHaveLength(3)
    expect(spawns[1]!.resumeSession).toBe(spawns[0]!.agentId)
    // No session to resume: a new one, with the question, the answer and the resume state.
    expect(spawns[2]!.resumeSession).toBeUndefined()
    expect(spawns[2]!.answer).toMatchObject({question: 'which store?', answer: '2'})
    expect(spawns[2]!.attempt).toBe(spawns[1]!.attempt)
    expect(sim.violations).toEqual([])
  })

  it('waits, as the file says, with its question answered: a run that stops before the relaunch leaves it to the next run', () => {
    // Ctrl-C as the resume fails: the relaunch it was to make is taken back before it spawns.
    const {sim, spawns} = answeredThen('unknown-session', true)
    expect(spawns).toHaveLength(2)
    expect(sim.finished).toBe(true)
    const row = sim.disk.rows.get('A')!
    expect(row.status).toBe('needs_input')
    expect(row.agentId).toBe('')
    expect(getNote(row.notes, 'question')).toBe('which store?')
    expect(getNote(row.notes, 'relaunched')).toMatch(/could not be resumed/)
    // The next run reads the same answer (still under ## Open Questions) and relaunches with it.
    const next = world(new Map([['A', {...row}]]))
    next.sim.dispatch({type: 'start'})
    expect(next.sim.answer(0)).toBe(true)
    next.settle()
    expect(next.spawns).toHaveLength(1)
    expect(next.spawns[0]!.resumeSession).toBeUndefined()
    expect(next.spawns[0]!.answer?.answer).toBe('2')
  })

  it('goes back with the resume after a rate limit: the same session, the answer again', () => {
    const {sim, spawns} = answeredThen('rate')
    expect(spawns).toHaveLength(3)
    expect(spawns[2]!.resumeSession).toBe(spawns[0]!.agentId)
    expect(spawns[2]!.answer?.answer).toBe('2')
    expect(sim.violations).toEqual([])
  })
})
