import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {planStatus} from '../../../src/plan/plan-status.js'
import {takeNote} from '../../../src/plan/take-note.js'
import {spendIntoNotes} from '../../../src/plan/spend-into-notes.js'
import {validatePlan} from '../../../src/plan/validate-plan.js'
import {PlanStore} from '../../../src/store/plan-store.js'
import {tableStateFromPlan} from '../../../src/store/table-state.js'
import {readNotes} from '../../../src/executor/row-notes.js'
import {computeScorecard} from '../../../src/report/compute-scorecard.js'
import {mergeStateSection} from '../../../src/merge/merge-state-section.js'
import {copyFixture, random, tickingClock} from '../../helpers/store-fixture.js'

const agents = ['A', 'B', 'C'].map((id) => `### ${id}: agent ${id}\n- **prompt**: |\n    Do ${id}.\n`).join('\n')

/** A plan whose table has the spend columns (right-aligned, padded), the rows given as lines. */
function planText(rows: string[], header = '| Agent | Status    | Agent ID | Tokens | Cost    | Notes |\n|-------|-----------|----------|-------:|--------:|-------|'): string {
  return `# Spend\n\n## Agents\n\n${agents}\n## Execution State\n\n${header}\n${rows.join('\n')}\n\nLast updated: 2026-02-01T09:00:00Z\n`
}

function inTemp(text: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mdplan-spend-')), 'plan.md')
  fs.writeFileSync(file, text)
  return file
}

const rowsOf = (text: string) => tableStateFromPlan(parsePlan(text, 'plan.md')).rows
const line = (text: string, agent: string): string => text.split('\n').find((l) => l.startsWith(`| ${agent} `))!

const typed = [
  '| A     | completed | a1       | 21,002 | $0.0750 | base: 1a2b |',
  '| B     | failed    | b1       |   1500 |   0.5   | attempt 1: x |',
  '| C     | pending   | —        |   lots |         |       |'
]

describe('Tokens and Cost columns', () => {
  it('read into the Notes as `tokens:` and `cost:`, so every reader sees the spend', () => {
    const text = planText(typed)
    const rows = rowsOf(text)
    expect(rows.get('A')!.notes).toBe('tokens: 21,002; cost: $0.0750; base: 1a2b')
    expect(rows.get('A')!.extra).toEqual({})
    // A person's plain digits read as the cell will show them once the row is written.
    expect(rows.get('B')!.notes).toBe('tokens: 1,500; cost: 0.5; attempt 1: x')
    expect(readNotes(rows.get('A')!.notes)).toMatchObject({tokens: 21002, cost: 0.075})
    // Unreadable: kept as text, nothing spent.
    expect(readNotes(rows.get('C')!.notes).tokens).toBe(0)
    const plan = parsePlan(text, 'plan.md')
    expect(planStatus(plan).spent).toEqual({tokens: 22502, usd: 0.575})
    expect(computeScorecard(plan)).toMatchObject({tokens: 22502, costUsd: 0.575})
    const warnings = validatePlan(plan).filter((d) => d.rule === 'unreadable-spend')
    const at = warnings.map((d) => (d.place && 'start' in d.place ? d.place.start : d.place))
    expect(at.map((point) => [point?.line, point?.column])).toEqual([[text.split('\n').indexOf(typed[2]!) + 1, 33]])
  })

  it('a plan with the columns round-trips byte for byte when nothing changed, and when another row did', async () => {
    const text = planText(typed)
    const file = inTemp(text)
    const store = await PlanStore.open(file, {now: tickingClock()})
    await store.write(store.state, {running: new Set()})
    expect(fs.readFileSync(file, 'utf8')).toBe(text)
    const state = store.state
    state.rows.get('C')!.status = 'in_progress'
    await store.write(state, {running: new Set(['C'])})
    const after = fs.readFileSync(file, 'utf8')
    // A and B keep their bytes (B's `1500` as typed); C's unreadable cell is kept as it is.
    expect(line(after, 'A')).toBe(typed[0])
    expect(line(after, 'B')).toBe(typed[1])
    expect(line(after, 'C')).toMatch(/^\| C +\| in_progress \| — +\| +lots \| +\| +\|$/)
  })

  it('the executor’s `tokens:` and `cost:` go into the cells, not the Notes, and read back alike', async () => {
    const file = inTemp(planText(typed))
    const store = await PlanStore.open(file, {now: tickingClock()})
    const state = store.state
    // As the executor renders them: its items at the end, plain digits.
    state.rows.get('C')!.notes = 'base: 9f8e; cost: $0.0200; tokens: 1500'
    state.rows.get('C')!.status = 'completed'
    const result = await store.write(state, {running: new Set()})
    const text = fs.readFileSync(file, 'utf8')
    expect(line(text, 'C')).toMatch(/^\| C +\| completed +\| — +\| +1,500 \| +\$0\.0200 \| base: 9f8e +\|$/)
    expect(text).not.toContain('tokens:')
    // The caller gets its own spelling back (it compares what it holds with what is on disk)…
    expect(result.state.rows.get('C')!.notes).toBe('base: 9f8e; cost: $0.0200; tokens: 1500')
    // …and the file reads as the same spend.
    const read = rowsOf(text).get('C')!
    expect(read.notes).toBe('tokens: 1,500; cost: $0.0200; base: 9f8e')
    expect(readNotes(read.notes)).toMatchObject({tokens: 1500, cost: 0.02, base: '9f8e'})
    // The next write with the same rows has nothing to do, and no hand edit is seen.
    const again = await store.write(result.state, {running: new Set()})
    expect(again.humanEdits).toEqual([])
    expect(fs.readFileSync(file, 'utf8')).toBe(text)
  })

  it('a person’s edit of a Tokens cell is honoured like any cell edit', async () => {
    const file = inTemp(planText(typed))
    const store = await PlanStore.open(file, {now: tickingClock()})
    const state = store.state
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(typed[0]!, typed[0]!.replace('21,002', '   900')))
    state.rows.get('B')!.status = 'pending'
    const result = await store.write(state, {running: new Set()})
    expect(result.humanEdits).toEqual([{agent: 'A', column: 'Notes', from: 'tokens: 21,002; cost: $0.0750; base: 1a2b', to: 'tokens: 900; cost: $0.0750; base: 1a2b'}])
    expect(readNotes(result.state.rows.get('A')!.notes).tokens).toBe(900)
    expect(line(fs.readFileSync(file, 'utf8'), 'A')).toBe(typed[0]!.replace('21,002', '   900'))
  })

  it('without the columns the spend stays in the Notes, as before', async () => {
    const file = inTemp(planText(['| A | pending | — | |', '| B | pending | — | |', '| C | pending | — | |'], '| Agent | Status | Agent ID | Notes |\n|---|---|---|---|'))
    const store = await PlanStore.open(file, {now: tickingClock()})
    const state = store.state
    Object.assign(state.rows.get('A')!, {status: 'completed', notes: 'cost: $0.0200; tokens: 1500'})
    await store.write(state, {running: new Set()})
    expect(line(fs.readFileSync(file, 'utf8'), 'A')).toBe('| A | completed | — | cost: $0.0200; tokens: 1500 |')
  })

  it('a column added to a plan whose Notes hold the spend: read from the Notes, moved into the cell when the row is written', async () => {
    const old = '| A     | completed | a1       |        |         | base: 1a2b; tokens: 700 |'
    const text = planText([old, typed[1]!, typed[2]!])
    expect(readNotes(rowsOf(text).get('A')!.notes).tokens).toBe(700)
    const file = inTemp(text)
    const store = await PlanStore.open(file, {now: tickingClock()})
    await store.write(store.state, {running: new Set()})
    expect(fs.readFileSync(file, 'utf8')).toBe(text)
    const state = store.state
    state.rows.get('A')!.notes = 'base: 1a2b; tokens: 1700'
    await store.write(state, {running: new Set()})
    expect(line(fs.readFileSync(file, 'utf8'), 'A')).toBe('| A     | completed | a1       |  1,700 |         | base: 1a2b |')
  })

  it('the merge driver takes the winning row’s spend, as it takes its Notes', () => {
    const base = parsePlan(planText(['| A | in_progress | a1 | 100 | $0.0100 | |', '| B | pending | — | | | |', '| C | pending | — | | | |'], '| Agent | Status | Agent ID | Tokens | Cost | Notes |\n|---|---|---|---|---|---|'), 'plan.md')
    const ours = parsePlan(base.text.replace('| A | in_progress | a1 | 100 | $0.0100 | |', '| A | completed | a1 | 2,100 | $0.0300 | result: ok |').replace('09:00:00Z', '10:00:00Z'), 'plan.md')
    const theirs = parsePlan(base.text.replace('| A | in_progress | a1 | 100 | $0.0100 | |', '| A | failed | a1 | 900 | $0.0200 | attempt 1: x |').replace('09:00:00Z', '11:00:00Z'), 'plan.md')
    const merged = mergeStateSection(base, ours, theirs)!
    expect(merged.text).toContain('| A | completed | a1 | 2,100 | $0.0300 | result: ok; attempt 1: x |')
    const theirsOnly = mergeStateSection(base, base, theirs)!
    expect(theirsOnly.text).toContain('| A | failed | a1 | 900 | $0.0200 | attempt 1: x |')
  })
})

describe('many writes of executor notes into an aligned table with the columns (fixtures/store/spend-columns)', () => {
  it('every write reads back as the same spend and items, and writing it again changes no byte and sees no edit', async () => {
    const file = copyFixture('spend-columns')
    const store = await PlanStore.open(file, {now: tickingClock()})
    const next = random(4242)
    const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!
    const notes = ['', 'base: 1a2b', 'keep me', 'attempt 1: a \\| b', 'a\\; b']
    let state = (await store.write(store.state, {running: new Set()})).state
    for (let i = 0; i < 60; i++) {
      const row = state.rows.get(pick(['A', 'B', 'C', 'D']))!
      row.status = pick(['pending', 'in_progress', 'completed', 'failed'] as const)
      const items = [pick(notes), next() < 0.7 ? `cost: $${(next() * 3).toFixed(4)}` : '', next() < 0.7 ? `tokens: ${Math.floor(next() * 3_000_000)}` : '']
      row.notes = items.filter(Boolean).join('; ')
      state = (await store.write(state, {running: new Set()})).state
      const text = fs.readFileSync(file, 'utf8')
      const read = tableStateFromPlan(parsePlan(text, file))
      for (const [agent, want] of state.rows) {
        const got = readNotes(read.rows.get(agent)!.notes)
        const wanted = readNotes(want.notes)
        expect([got.tokens ?? 0, got.cost ?? 0, got.items.filter((item) => item.key !== 'tokens' && item.key !== 'cost').map((item) => item.raw)]).toEqual([
          wanted.tokens ?? 0,
          wanted.cost ?? 0,
          wanted.items.filter((item) => item.key !== 'tokens' && item.key !== 'cost').map((item) => item.raw)
        ])
      }
      expect(text).not.toMatch(/tokens:|cost:/)
      const again = await store.write(state, {running: new Set()})
      expect(again.humanEdits).toEqual([])
      expect(fs.readFileSync(file, 'utf8')).toBe(text)
    }
  })
})

describe('takeNote and spendIntoNotes', () => {
  it('are inverses, every other byte kept', () => {
    for (const notes of ['', 'base: 1a2b', 'a;b', 'x\\\\; y', 'path a\\; b; tokens: 3', 'TODO: ask Bob']) {
      for (const [tokens, cost] of [['21,002', '$0.0750'], ['a\\;b', ''], ['', '1'], ['x\\\\', 'y\\\\']] as const) {
        const joined = spendIntoNotes(notes, tokens, cost)
        const t = tokens === '' ? {value: undefined, rest: joined} : takeNote(joined, 'tokens')
        const c = cost === '' ? {value: undefined, rest: t.rest} : takeNote(t.rest, 'cost')
        expect([t.value ?? '', c.value ?? '', c.rest], JSON.stringify([notes, tokens, cost])).toEqual([tokens, cost, notes])
      }
    }
  })

  it('takes the first item of a key from anywhere in the cell', () => {
    expect(takeNote('a; tokens: 5; b; tokens: 6', 'tokens')).toEqual({value: '5', rest: 'a; b; tokens: 6'})
    expect(takeNote('a; tokens: 5', 'tokens')).toEqual({value: '5', rest: 'a'})
    expect(takeNote('tokens: 5', 'tokens')).toEqual({value: '5', rest: ''})
    expect(takeNote('a; b', 'tokens')).toEqual({value: undefined, rest: 'a; b'})
  })
})
