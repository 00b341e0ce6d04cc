import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {attemptsInNotes, getNote, setNote} from '../../../src/plan/notes.js'
import {parseJobNote} from '../../../src/hosts/job-key.js'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {tableStateFromPlan, type RowState} from '../../../src/store/table-state.js'
import {execRow, execTable, storeRow, storeTable} from '../../../src/executor/exec-row.js'
import {readNotes, renderNotes, withFailure, withNotes, withNoteText, type NotesPatch, type RowNotes} from '../../../src/executor/row-notes.js'
import {forEachShapes} from '../../helpers/real-plans.js'

/**
 * The executor holds a row's Notes as values (row-notes.ts), read from the cell where the table comes
 * from the store and rendered where it goes back. The plan file's bytes are the contract: a cell read
 * and written back is the same bytes, and a cell the executor sets fields in reads exactly as the text
 * edits it made before (plan/notes.ts's `setNote`, kept here as the oracle) would have left it, item for
 * item, in their order and spelling: a person's free text, `result:`, `scope:`, odd spacing, `\;` and all.
 */

/** Notes cells as tests, fixtures and real plans have them (`grep -rhoE "\| (in_progress|failed|…) \|…" test fixtures`). */
const seen = [
  '',
  '  odd   spacing  ',
  'TODO ask Bob',
  'a \\\\',
  'attempt 1: build failed; attempt 2: build failed; attempt 3: timeout',
  'attempt 1: route test fails; attempt 2: lint; result: route added with cache; commit: 2222222',
  'attempt 1: schema \\',
  'attempt 1: pnpm test failed in src/lib/xrpl/credentials.test.ts (3 of 40 tests): expected 2 credentials, got 0',
  'base: 2222222',
  'blocked by: C (failed)',
  'blocked by: B, C, D',
  'checkpoint: step 3',
  'conflict: Status kept completed',
  'cost: $0.12',
  'failed see log; took 1h 02m',
  'job: h1 mdplan1-p-A-a1-00ff00',
  'question: Which docs site, Docusaurus or MkDocs?',
  'result: <b>bold</b> & <img src=x>',
  'result: schema               ',
  '6/6 TDD. Discovery: buf.length for multi-byte UTF-8 validation',
  'paused: rate or usage limit (429); retrying at 18: 37:20Z',
  'paused: rate or usage limit (429), retrying at 18:37:20Z; work: build1 mdplan3-p-A-a2-abc123',
  'Job:  h1 mdplan1-p-A-a1-00ff00 ;; base: 1a2b\\; c ; —',
  'attempt 02: old; Attempt 2: new; attempt  3: spaced'
]

const keys = ['job', 'host', 'work', 'base', 'paused', 'relaunched', 'question', 'checkpoint', 'cost', 'blocked by', 'soft-blocked by', 'conflict', 'result', 'child']
const foreign = ['commit', 'scope', 'slurm', 'todo', 'took 3m', 'retrying at 18']
const fields = ['job', 'host', 'work', 'base', 'paused', 'relaunched', 'question', 'checkpoint', 'cost', 'blockedBy', 'softBlockedBy', 'conflict', 'result', 'child'] as const

/** Text a cell or a value may hold: separators, escapes, colons, times, job names, money, dashes. */
const fragment = fc.constantFrom(
  ';', '; ', ' ;  ', '\\;', '\\\\;', '\\', '\\\\', ':', ': ', ' ', '   ', '—', '-', '18:37:20Z', 'retrying at ', 'took 3m 12s',
  'tests failed', 'x', 'A, B', 'h1', 'local', 'mdplan1-p-A-a1-00ff00', 'mdplan-p-B-a2-000001', '$0.12', '$1.5', '2', 'é', '<b>'
)
const keyText = fc.oneof(
  fc.constantFrom(...keys, ...foreign),
  fc.constantFrom(...keys).map((key) => key.toUpperCase()),
  fc.integer({min: 1, max: 4}).map((n) => `attempt ${n}`),
  fc.constantFrom('Attempt 2', 'attempt 02')
)
const item = fc.oneof(
  fc.tuple(keyText, fc.constantFrom(':', ': ', ':   ', ' : '), fc.array(fragment, {maxLength: 4})).map(([key, colon, value]) => `${key}${colon}${value.join('')}`),
  fc.array(fragment, {maxLength: 4}).map((text) => text.join(''))
)
const cell = fc.oneof(
  fc.constantFrom(...seen),
  fc.tuple(fc.array(item, {maxLength: 6}), fc.array(fc.constantFrom(';', '; ', ' ; ', ';;', ';  '), {minLength: 6, maxLength: 6})).map(([items, seps]) =>
    items.map((text, i) => (i === 0 ? text : `${seps[i]}${text}`)).join('')
  )
)

const value = fc.array(fc.oneof(fragment, fc.constantFrom('\n', ' \r\n  ', 'a', 'why')), {maxLength: 5}).map((parts) => parts.join(''))
const job = fc.record({host: fc.constantFrom('h1', 'local', 'a b'), key: fc.constantFrom('mdplan1-p-A-a1-00ff00', 'mdplan-p-B-a2-000001', 'k1', 'mdplan1-p-A-a1-00ff00 x')})
const work = fc.record({host: fc.constantFrom('h1', 'local', 'a b'), key: fc.option(fc.constantFrom('mdplan1-p-A-a1-00ff00', 'k1'), {nil: undefined})}).map((w): {host: string; key?: string} => (w.key === undefined ? {host: w.host} : {host: w.host, key: w.key}))
const cost = fc.integer({min: 0, max: 50_000_000}).map((micro) => micro / 1e6)

/** One edit, both ways: as a field of the row, and as the text edit the executor made before. */
interface Op {
  show: string
  typed: (notes: RowNotes) => RowNotes
  text: (cell: string) => string
}
const typedOp = (field: (typeof fields)[number], key: string, given: unknown, asText: string | undefined): Op => ({
  show: `${field} = ${JSON.stringify(given)}`,
  typed: (notes) => withNotes(notes, {[field]: given} as NotesPatch),
  text: (cell) => setNote(cell, key, asText)
})
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.tuple(fc.constantFrom(...fields.filter((f) => !['job', 'work', 'cost'].includes(f))), fc.option(value, {nil: undefined})).map(([field, given]) =>
    typedOp(field, keys[fields.indexOf(field)]!, given, given)
  ),
  fc.option(job, {nil: undefined}).map((given) => typedOp('job', 'job', given, given && `${given.host} ${given.key}`)),
  fc.option(work, {nil: undefined}).map((given) => typedOp('work', 'work', given, given && (given.key === undefined ? given.host : `${given.host} ${given.key}`))),
  fc.option(cost, {nil: undefined}).map((given) => typedOp('cost', 'cost', given, given === undefined ? undefined : `$${given.toFixed(4)}`)),
  fc.tuple(fc.integer({min: 1, max: 4}), value).map(([n, reason]) => ({
    show: `attempt ${n} = ${JSON.stringify(reason)}`,
    typed: (notes: RowNotes) => withFailure(notes, n, reason),
    text: (cell: string) => setNote(cell, `attempt ${n}`, reason)
  })),
  fc.tuple(fc.oneof(fc.constantFrom(...keys, ...foreign.slice(0, 3)), fc.integer({min: 1, max: 4}).map((n) => `attempt ${n}`)), fc.option(value, {nil: undefined})).map(([key, text]) => ({
    show: `text ${key} = ${JSON.stringify(text)}`,
    typed: (notes: RowNotes) => withNoteText(notes, key, text),
    text: (cell: string) => setNote(cell, key, text)
  }))
)

/** The fields, as the executor read them from the text before (getNote, attemptsInNotes, parseJobNote). */
function fromText(cell: string): Record<string, unknown> {
  const out: Record<string, unknown> = {attempts: new Map(attemptsInNotes(cell).map((a) => [a.attempt, a.reason]))}
  fields.forEach((field, i) => {
    const text = getNote(cell, keys[i]!)
    if (text === undefined) return
    if (field === 'job') out.job = parseJobNote(text)
    else if (field === 'work') out.work = text.trim() ? (parseJobNote(text.trim()) ?? (/^\S+$/.test(text.trim()) ? {host: text.trim()} : undefined)) : undefined
    else if (field === 'cost') out.cost = Number(text.replace(/^\$/, '')) || 0
    else out[field] = text
  })
  return out
}

function valuesOf(notes: RowNotes): Record<string, unknown> {
  const out: Record<string, unknown> = {attempts: notes.attempts}
  for (const field of fields) if (notes[field] !== undefined) out[field] = notes[field]
  return out
}

describe('a row’s Notes as values', () => {
  it('reads every cell and renders it back byte for byte, and a store row comes back as the very row', () => {
    fc.assert(
      fc.property(cell, (text) => {
        expect(renderNotes(readNotes(text))).toBe(text)
        expect(valuesOf(readNotes(text))).toEqual(fromText(text))
        const row: RowState = {status: 'failed', agentId: 'x-1', duration: '3m', notes: text, extra: {Owner: 'bob'}}
        expect(storeRow(execRow(row))).toBe(row)
        // A row the executor made from scratch renders to the same cells.
        expect(storeRow({...execRow(row)})).toEqual(row)
      }),
      {seed: 20261127, numRuns: 2000}
    )
  })

  it('setting fields leaves the cell as the text edits did, item for item, and the values as that text reads', () => {
    fc.assert(
      fc.property(cell, fc.array(op, {minLength: 1, maxLength: 8}), (start, ops) => {
        let text = start
        let notes = readNotes(start)
        for (const edit of ops) {
          text = edit.text(text)
          notes = edit.typed(notes)
          expect(renderNotes(notes), edit.show).toBe(text)
          expect(valuesOf(notes), edit.show).toEqual(fromText(text))
          // What the executor holds is what the next run reads from the file.
          expect(valuesOf(readNotes(renderNotes(notes))), edit.show).toEqual(valuesOf(notes))
        }
      }),
      {seed: 20261127, numRuns: 2000}
    )
  })

  it('keeps what the executor does not know in place, and adds what it sets at the end', () => {
    let notes = readNotes('TODO: ask Bob;  scope:  src/a.ts ; attempt 1: boom;free text\\; with a semicolon')
    notes = withNotes(notes, {job: {host: 'h1', key: 'mdplan1-p-A-a2-00ff00'}, cost: 0.12345})
    notes = withFailure(notes, 2, 'tests failed; see log')
    expect(renderNotes(notes)).toBe('TODO: ask Bob; scope:  src/a.ts; attempt 1: boom; free text\\; with a semicolon; job: h1 mdplan1-p-A-a2-00ff00; cost: $0.1235; attempt 2: tests failed\\; see log')
    expect(notes.attempts).toEqual(new Map([[1, 'boom'], [2, 'tests failed; see log']]))
    expect(notes.cost).toBe(0.1235)
  })
})

describe('the store’s edge', () => {
  it('hands back the rows it was given, and renders only the rows the executor changed', () => {
    const rows = new Map<string, RowState>(seen.map((notes, i) => [`A${i}`, {status: 'pending', agentId: '', duration: '', notes, extra: {}}]))
    const table = execTable({rows, meta: {started: '2026-11-27T10:00:00Z'}})
    const changed = table.rows.get('A1')!
    table.rows.set('A1', {...changed, notes: withNotes(changed.notes, {paused: 'x'})})
    const out = storeTable(table)
    for (const [id, row] of rows) if (id !== 'A1') expect(out.rows.get(id)).toBe(row)
    expect(out.rows.get('A1')!.notes).toBe('odd   spacing; paused: x')
    expect(storeTable(table).rows.get('A1')).toBe(out.rows.get('A1'))
    expect(out.meta).toEqual({started: '2026-11-27T10:00:00Z'})
  })

  forEachShapes(({dir}) => {
    it('reads the Notes of the plans and renders them back byte for byte', () => {
      let cells = 0
      for (const name of readdirSync(dir).filter((file) => file.endsWith('.md'))) {
        const table = tableStateFromPlan(parsePlan(readFileSync(join(dir, name), 'utf8'), name))
        for (const row of table.rows.values()) {
          cells++
          expect(renderNotes(readNotes(row.notes))).toBe(row.notes)
          expect(valuesOf(readNotes(row.notes))).toEqual(fromText(row.notes))
          expect(storeRow(execRow(row))).toBe(row)
        }
      }
      expect(cells).toBeGreaterThan(0)
    })
  })
})
