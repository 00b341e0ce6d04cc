import fs from 'node:fs'
import path from 'node:path'
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {renderState} from '../../../src/store/render-state.js'
import {spliceLines} from '../../../src/store/splice-lines.js'
import {stateLayout, type StateLayout} from '../../../src/store/state-layout.js'
import {tableStateFromPlan, type RowState, type TableState} from '../../../src/store/table-state.js'
import {storeFixtures} from '../../helpers/store-fixture.js'

const fixtures = ['ten-agents', 'padded', 'crlf', 'crlf-bom-no-final-newline', 'no-final-newline', 'extra-columns', 'no-duration', 'bom']

// Values that change a row's byte length, in one or more bytes per character, with pipes and spaces to escape.
const cell = fc.constantFrom('', 'x', 'agent-1f', 'a | b', ' spaced ', 'é ü 日本', 'a note much wider than any column of the table 🙂', '—')
const status = fc.constantFrom('pending', 'in_progress', 'completed', 'failed', 'needs_input')
const event = fc.record({row: fc.nat(), status, agentId: cell, duration: cell, notes: cell, meta: fc.option(cell, {nil: undefined})})

/** The file with the whole section encoded again: what a write did before it spliced lines. */
function whole(bytes: Buffer, at: {start: number; end: number}, text: string): Buffer {
  return Buffer.concat([bytes.subarray(0, at.start), Buffer.from(text, 'utf8'), bytes.subarray(at.end)])
}

describe('a write splices only the changed lines into the file', () => {
  for (const name of fixtures) {
    it(`${name}: every write's bytes are the whole-section render's, and looking at the changed rows alone renders the same`, () => {
      const source = fs.readFileSync(path.join(storeFixtures, name, 'plan.md'))
      const bom = source[0] === 0xef && source[1] === 0xbb && source[2] === 0xbf
      const plan = parsePlan(source.toString('utf8', bom ? 3 : 0), 'plan.md')
      const first = stateLayout(plan)
      if (!first) throw new Error(`${name} has no table`)
      fc.assert(
        fc.property(fc.array(event, {minLength: 1, maxLength: 25}), (events) => {
          let layout: StateLayout = first
          let state: TableState = tableStateFromPlan(plan)
          // The first render adds the rows of agents the table lacks; the splices start from it.
          layout = renderState(layout, state, {overflow: true}).layout
          const text = plan.text
          let splices = 0
          let bytes: Buffer = Buffer.from((bom ? '\uFEFF' : '') + text.slice(0, first.start) + renderState(first, state, {overflow: true}).text + text.slice(first.end), 'utf8')
          const start = (bom ? 3 : 0) + Buffer.byteLength(text.slice(0, first.start))
          let at = {start, end: bytes.length - Buffer.byteLength(text.slice(first.end))}
          const ids = [...state.rows.keys()]
          for (const change of events) {
            const id = ids[change.row % ids.length]!
            const row: RowState = {...state.rows.get(id)!, status: change.status, agentId: change.agentId.trim(), duration: change.duration.trim(), notes: change.notes.trim()}
            const rows = new Map(state.rows).set(id, row)
            const next: TableState = {rows, meta: change.meta === undefined ? state.meta : {...state.meta, build: change.meta.trim()}}
            const full = renderState(layout, next, {overflow: true})
            const hinted = renderState(layout, next, {overflow: true, changed: [id]})
            expect(hinted.text).toBe(full.text)
            expect(hinted.layout.end - hinted.layout.start).toBe(hinted.text.length)
            const spliced = spliceLines(bytes, at, layout, hinted.layout)
            const expected = whole(bytes, at, full.text)
            if (spliced) {
              expect(spliced.data.equals(expected)).toBe(true)
              expect(spliced.data.toString('utf8', spliced.sectionBytes.start, spliced.sectionBytes.end)).toBe(full.text)
              at = spliced.sectionBytes
              splices++
            } else at = {start: at.start, end: at.start + Buffer.byteLength(full.text)}
            bytes = expected
            layout = hinted.layout
            state = next
          }
          // The table keeps its shape after the first render: every write is a splice.
          expect(splices).toBe(events.length)
        }),
        {numRuns: 60}
      )
    })
  }
})
