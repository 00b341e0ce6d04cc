import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {formatNotes, getNote, parseNotes, setNote} from '../../../src/plan/notes.js'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {PlanStore} from '../../../src/store/plan-store.js'
import {tableStateFromPlan, type TableState} from '../../../src/store/table-state.js'
import {sized} from '../../helpers/quick.js'

/**
 * Notes are items split on `; `. Text an agent or the CLI puts in an item (a failure reason, a question,
 * a result) may hold `;`, `|`, backticks, backslashes or a newline: written into the table by the real
 * store, read back from the file and written again, it is a fixed point and reads as the same items.
 */
const keys = ['attempt 1', 'attempt 2', 'question', 'result', 'checkpoint', 'relaunched']
// The characters that matter to a cell and to the item split, and a few that do not.
const text = fc.array(fc.constantFrom('a', 'b', ' ', ';', '; ', '\\', '|', '`', ':', '\n', '—', '1', 'é'), {maxLength: 24}).map((parts) => parts.join(''))
const ops = fc.array(fc.tuple(fc.constantFrom(...keys), fc.option(text, {nil: undefined})), {minLength: 1, maxLength: 6})

const plan = `# Parallel Plan: notes

## Agents

### A: a
- **depends_on**: []
- **prompt**: |
    Do it.

## Execution State

| Agent | Status | Agent ID | Duration | Notes |
|-------|--------|----------|----------|-------|
| A | failed | sh-1 | 1s | |
`

/** The value as a one-line cell reads it: newlines as spaces, trimmed. */
const oneLine = (value: string): string => value.replace(/\s*[\r\n]+\s*/g, ' ').trim()

function notesOnDisk(file: string): string {
  return tableStateFromPlan(parsePlan(readFileSync(file, 'utf8'), file)).rows.get('A')!.notes
}

async function write(file: string, notes: string): Promise<void> {
  const store = await PlanStore.open(file)
  const state: TableState = store.state
  state.rows.set('A', {...state.rows.get('A')!, notes})
  await store.write(state, {running: new Set()})
  store.close()
}

describe('Notes items round-trip through the table', () => {
  it('any sequence of item writes: read back as the same items, and a second write is a fixed point (seeded)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mdplan-notes-'))
    const file = join(dir, 'plan.md')
    await fc.assert(
      fc.asyncProperty(ops, async (steps) => {
        writeFileSync(file, plan)
        const model = new Map<string, string>()
        let cell = ''
        for (const [key, value] of steps) {
          cell = setNote(cell, key, value)
          model.delete(key)
          if (value !== undefined && oneLine(value) !== '') model.set(key, oneLine(value))
          await write(file, cell)
          cell = notesOnDisk(file)
          // The same items, in order, with the same values.
          expect(parseNotes(cell).map((item) => [item.key, item.value])).toEqual([...model])
          for (const [k, v] of model) expect(getNote(cell, k)).toBe(v)
        }
        // Read, written again: not one byte changes.
        const before = readFileSync(file, 'utf8')
        expect(formatNotes(parseNotes(cell))).toBe(cell)
        await write(file, formatNotes(parseNotes(cell)))
        expect(readFileSync(file, 'utf8')).toBe(before)
      }),
      {seed: 20261123, numRuns: sized(150, 40)}
    )
  }, 120_000)

  it("a person's items stay as written when mdplan sets another", () => {
    expect(setNote('TODO: ask Bob; see `a|b`', 'result', 'done')).toBe('TODO: ask Bob; see `a|b`; result: done')
  })

  it('a failure reason holding `; ` stays one item, shown with `\\;`', () => {
    const cell = setNote('', 'attempt 1', 'npm test failed; exit 1')
    expect(cell).toBe('attempt 1: npm test failed\\; exit 1')
    expect(parseNotes(cell)).toEqual([{key: 'attempt 1', value: 'npm test failed; exit 1', raw: cell}])
  })
})
