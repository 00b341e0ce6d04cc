import fs from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import type {Plan} from '../../../src/plan/types.js'
import {PlanStore} from '../../../src/store/plan-store.js'
import {tableStateFromPlan, type TableState} from '../../../src/store/table-state.js'
import {copyFixture, random, storeFixtures, tickingClock} from '../../helpers/store-fixture.js'
import {sized} from '../../helpers/quick.js'

const cases = fs.readdirSync(storeFixtures).filter((name) => fs.existsSync(path.join(storeFixtures, name, 'plan.md')))

/** The scripted run every fixture goes through: launches, a failure with a nasty note, a re-queue, completions. */
async function script(store: PlanStore): Promise<void> {
  let state = store.state
  const running = new Set<string>()
  const step = async (change: (state: TableState) => void): Promise<void> => {
    change(state)
    state = (await store.write(state, {running})).state
  }
  const row = (id: string) => state.rows.get(id)!
  await step((s) => {
    s.meta.started = '2026-02-01T10:00:00Z'
    Object.assign(row('A'), {status: 'in_progress', agentId: 'agent-a1'})
    running.add('A')
  })
  await step(() => {
    Object.assign(row('A'), {status: 'completed', duration: '45s'})
    running.delete('A')
  })
  await step(() => {
    Object.assign(row('B'), {status: 'in_progress', agentId: 'agent_01HXY'})
    Object.assign(row('C'), {status: 'in_progress', agentId: 'a9a395b'})
    running.add('B').add('C')
  })
  await step(() => {
    Object.assign(row('B'), {status: 'failed', duration: '12s', notes: 'attempt 1: tests | failed\nsee log'})
    running.delete('B')
  })
  await step(() => {
    Object.assign(row('C'), {status: 'completed', duration: '3m 05s', notes: 'checkpoint: step 3'})
    running.delete('C')
  })
  await step(() => Object.assign(row('B'), {status: 'pending'}))
  await step((s) => {
    Object.assign(row('B'), {status: 'completed', duration: '1h 02m'})
    s.meta.build = 'pass'
  })
}

/** Bytes outside the owned section: before it and after it (the whole text when there is none). */
function outside(plan: Plan): [string, string] {
  if (!plan.state) return [plan.text, '']
  return [plan.text.slice(0, plan.state.section.start.offset), plan.text.slice(plan.state.section.end.offset)]
}

function parseFile(file: string): Plan {
  return parsePlan(fs.readFileSync(file, 'utf8'), file)
}

describe('golden fixtures', () => {
  it.each(cases)('%s', async (name) => {
    const file = copyFixture(name)
    const before = parseFile(file)
    const store = await PlanStore.open(file, {now: tickingClock()})
    await script(store)
    const written = fs.readFileSync(file)
    const expectedFile = path.join(storeFixtures, name, 'expected.md')
    if (process.env.UPDATE) fs.writeFileSync(expectedFile, written)
    expect(written.toString('utf8')).toBe(fs.readFileSync(expectedFile, 'utf8'))

    const after = parseFile(file)
    expect(after.bom).toBe(before.bom)
    expect(after.eol).toBe(before.eol)
    expect(after.finalNewline).toBe(before.finalNewline)
    const [head, tail] = outside(before)
    if (before.state) {
      expect(outside(after)).toEqual([head, tail])
    } else {
      expect(after.text.startsWith(head)).toBe(true)
      expect(after.state).toBeDefined()
    }
    expect(after.messages.filter((message) => message.severity === 'error')).toEqual([])
    if (before.eol === '\r\n') expect(after.text.replace(/\r\n/g, '')).not.toContain('\n')
  })
})

const writes = sized(100, 25)

describe(`${writes} writes`, () => {
  const values = ['', 'x', 'attempt 2: a | b', 'multi\nline', 'ünïcødé ✓', 'a much longer note that is wider than any padded column here', '—', '`code | span`']
  const statuses = ['pending', 'in_progress', 'completed', 'failed', 'needs_input'] as const

  it.each(cases)('%s keeps every byte outside the section, and reads back what it wrote', async (name) => {
    const file = copyFixture(name)
    const store = await PlanStore.open(file, {now: tickingClock()})
    const first = await store.write(store.state, {running: new Set()})
    const [head, tail] = outside(parseFile(file))
    const next = random(name.length * 7919)
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!
    let state = first.state
    const agents = [...state.rows.keys()]
    for (let i = 0; i < writes; i++) {
      const row = state.rows.get(pick(agents))!
      row.status = pick(statuses)
      row.notes = pick(values)
      if (next() < 0.3) row.agentId = pick(['', 'agent-abc123', 'a9a395b'])
      if (next() < 0.3) row.duration = pick(['', '45s', '1h 02m'])
      state = (await store.write(state, {running: new Set()})).state
      const plan = parseFile(file)
      expect(outside(plan)).toEqual([head, tail])
      const read = tableStateFromPlan(plan)
      for (const [agent, want] of state.rows) {
        const got = read.rows.get(agent)!
        const hasDuration = plan.state!.table!.index.duration !== -1
        expect({...got, duration: hasDuration ? got.duration : ''}).toEqual({...want, duration: hasDuration ? want.duration : ''})
      }
      expect(read.meta.lastUpdated).toBe(state.meta.lastUpdated)
    }
  })
})
