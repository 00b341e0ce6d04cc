import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {PlanStore} from '../../../src/store/plan-store.js'
import type {RowState, TableState} from '../../../src/store/table-state.js'
import {forEachShapes} from '../../helpers/real-plans.js'
import {tickingClock} from '../../helpers/store-fixture.js'

// Issue 23: in a Prettier-aligned table the first `in_progress` (11 characters in a 9-wide
// column) used to re-pad every row, so a pull request's diff of one event showed the whole table.

const goldens = path.resolve('fixtures/store-aligned')

interface Event {
  label: string
  touched: string[]
  change: (state: TableState) => void
}

/** A run of the plan from a reset table, ending with every row as the file had it. */
function script(original: TableState): Event[] {
  const agents = [...original.rows.keys()]
  const row = (state: TableState, id: string): RowState => state.rows.get(id)!
  const events: Event[] = [
    {
      label: 'a person resets the table',
      touched: agents,
      change: (state) => {
        for (const id of agents) Object.assign(row(state, id), {status: 'pending', agentId: '', duration: '', notes: ''})
      }
    }
  ]
  for (const [i, id] of agents.entries()) {
    events.push({label: `${id} launched`, touched: [id], change: (state) => Object.assign(row(state, id), {status: 'in_progress', agentId: original.rows.get(id)!.agentId})})
    if (i === 1) {
      events.push({
        label: `${id} failed with a note wider than its column`,
        touched: [id],
        change: (state) => Object.assign(row(state, id), {status: 'failed', duration: '12s', notes: 'attempt 1: pnpm test failed in src/lib/xrpl/credentials.test.ts (3 of 40 tests): expected 2 credentials, got 0'})
      })
      events.push({label: `${id} re-queued by the run`, touched: [id], change: (state) => Object.assign(row(state, id), {status: 'in_progress'})})
    }
    events.push({label: `${id} completed`, touched: [id], change: (state) => Object.assign(row(state, id), {...original.rows.get(id)!, extra: row(state, id).extra})})
  }
  return events
}

/** Lines that differ, positionally (no event adds or removes a line here). */
function lineDiff(before: string, after: string): Array<{line: number; from: string; to: string}> {
  const a = before.split('\n')
  const b = after.split('\n')
  expect(b.length).toBe(a.length)
  const out: Array<{line: number; from: string; to: string}> = []
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) out.push({line: i + 1, from: a[i]!, to: b[i]!})
  return out
}

async function replay(source: string): Promise<{diffs: string[]; first: string; last: string}> {
  const name = path.basename(source)
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'mdplan-aligned-'))
  const file = path.join(folder, 'plan.md')
  fs.copyFileSync(source, file)
  const first = fs.readFileSync(file, 'utf8')
  const store = await PlanStore.open(file, {now: tickingClock()})
  try {
    const original = store.state
    let state = store.state
    let before = first
    const diffs: string[] = []
    for (const event of script(original)) {
      event.change(state)
      const running = new Set([...state.rows].filter(([, row]) => row.status === 'in_progress').map(([id]) => id))
      state = (await store.write(state, {running})).state
      const after = fs.readFileSync(file, 'utf8')
      const changed = lineDiff(before, after)
      // Only the touched rows and `Last updated:` may change.
      const allowed = (line: string): boolean => line.startsWith('Last updated:') || event.touched.some((id) => new RegExp(`^\\|\\s*${id}\\s*\\|`).test(line))
      for (const {from, to} of changed) expect(allowed(from) && allowed(to), `${name}: ${event.label}: ${from} → ${to}`).toBe(true)
      expect(changed.length).toBeLessThanOrEqual(event.touched.length + 1)
      diffs.push(`## ${event.label}\n` + changed.map(({line, from, to}) => `@@ line ${line}\n- ${mask(from)}\n+ ${mask(to)}`).join('\n'))
      before = after
    }
    return {diffs, first, last: before}
  } finally {
    store.close()
    fs.rmSync(folder, {recursive: true, force: true})
  }
}

/** `Last updated:` is stamped in local time: the golden must not depend on the machine's zone. */
function mask(line: string): string {
  return line.startsWith('Last updated:') ? 'Last updated: <stamp>' : line
}

/** The table's lines (header to last row). */
function tableLines(text: string): string[] {
  const section = text.slice(text.indexOf('## Execution State'))
  return section.split('\n').filter((line) => line.startsWith('|'))
}

forEachShapes((shapes) => {
  const plans = [
    shapes.finished, // aligned (Prettier)
    shapes.compact, // compact
    shapes.noDuration // aligned, no Duration column
  ]

  describe('one event, one row in the diff', () => {
    for (const name of plans) {
      it(`${name.replace(/^.*__/, '')}: each event changes its rows and Last updated; the finished table is the original`, async () => {
        const {first, last} = await replay(path.join(shapes.dir, name))
        // Every row back to the values it had: back to the widths it had, byte for byte.
        expect(tableLines(last)).toEqual(tableLines(first))
      })
    }

    it('the line diff of each event on the Prettier-aligned plan (golden)', async () => {
      const golden = path.join(goldens, shapes.facts.alignedGolden)
      const {diffs} = await replay(path.join(shapes.dir, plans[0]!))
      const text = diffs.join('\n\n') + '\n'
      if (process.env.UPDATE === '1') {
        fs.mkdirSync(path.dirname(golden), {recursive: true})
        fs.writeFileSync(golden, text)
      }
      expect(text).toBe(fs.readFileSync(golden, 'utf8'))
      // An overflowing value widens only its own row: the other rows keep the table's widths.
      expect(text).toContain(`+ | A     | in_progress | ${shapes.facts.finishedA.agentId}  | —        |`)
    })
  })
})

describe('an aligned table read back with overflowing rows', () => {
  it('is still aligned (a re-read after a hand save keeps the style and the widths)', async () => {
    const {detectTableStyle} = await import('../../../src/store/detect-table-style.js')
    const header = '| Agent | Status    | Notes |'
    const delimiter = '| ----- | --------- | ----- |'
    const rows = ['| A     | in_progress | —     |', '| B     | in_progress | —     |', '| C     | in_progress | a long note |', '| D     | pending   | —     |']
    const style = detectTableStyle(header, delimiter, rows)
    expect(style.aligned).toBe(true)
    expect(style.widths).toEqual([5, 9, 5])
    // A compact table whose header and delimiter line up is not taken for an aligned one.
    expect(detectTableStyle('| Agent | Status |', '|-------|--------|', ['| A | pending |', '| B | in_progress |']).aligned).toBe(false)
  })
})
