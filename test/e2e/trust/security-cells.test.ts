import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {validatePlan} from '../../../src/plan/validate-plan.js'
import {statuses} from '../../../src/plan/types.js'
import {normalizeCell} from '../../../src/store/escape-cell.js'
import {PlanStore} from '../../../src/store/plan-store.js'
import {readTable, runCli, setupPlan, shellPlan} from '../../helpers/run-cli.js'

const ids = ['A', 'B', 'C', 'D']

/** Text an agent or a person could put in a cell, biased towards what breaks tables. */
const nasty = fc.oneof(
  fc.array(fc.constantFrom('|', '\\', '\\|', '\n', '\r\n', '<script>alert(1)</script>', '</td></tr>', '<br>', '&#124;', '`', '``', '*', '_', '#', '—', '-', ' ', '\t', 'a', 'b', ';', ':', 'attempt 1: x', '[x](y)', '<!--', '-->'), {maxLength: 12}).map((parts) => parts.join('')),
  fc.string({maxLength: 30}),
  fc.string({unit: 'grapheme', maxLength: 10})
)

const tableState = fc.array(fc.record({status: fc.constantFrom(...statuses), agentId: nasty, duration: nasty, notes: nasty}), {minLength: ids.length, maxLength: ids.length})

function table(file: string) {
  const text = readFileSync(file, 'utf8')
  const plan = parsePlan(text, file)
  return {text, plan, errors: [...plan.messages, ...validatePlan(plan)].filter((d) => d.severity === 'error')}
}

describe('table cells cannot break the table', () => {
  const spaced = shellPlan(Object.fromEntries(ids.map((id) => [id, {script: 'true'}])))
  // Compact rows (no spaces around cells) stay compact: a trailing backslash must not escape the closing pipe.
  const compact = spaced
    .replace('| Agent | Status | Agent ID | Duration | Notes |', '|Agent|Status|Agent ID|Duration|Notes|')
    .replace('|-------|--------|----------|----------|-------|', '|---|---|---|---|---|')
    .replace(/^\| ([A-D]) \| pending \| — \| — \| \|$/gm, '|$1|pending|—|—||')
  // Aligned rows (padded columns) stay aligned.
  const aligned = spaced
    .replace('| Agent | Status | Agent ID | Duration | Notes |', '| Agent | Status  | Agent ID | Duration | Notes |')
    .replace('|-------|--------|----------|----------|-------|', '|-------|---------|----------|----------|-------|')
    .replace(/^\| ([A-D]) \| pending \| — \| — \| \|$/gm, '| $1     | pending | —        | —        |       |')

  it.each([
    ['spaced', spaced, '| A | pending | — | — | |'],
    ['compact', compact, '|A|pending|—|—||'],
    ['aligned', aligned, '| A     | pending | —        | —        |       |']
  ])('any cell text written by the store reads back as one cell of its own row, and nothing else moves (%s table)', async (_style, original, sample) => {
    expect(original).toContain(sample)
    const dir = mkdtempSync(join(tmpdir(), 'mdplan-cells-'))
    const file = join(dir, 'plan.md')
    const before = original.slice(0, original.indexOf('## Execution State'))
    await fc.assert(
      fc.asyncProperty(tableState, async (rows) => {
        writeFileSync(file, original)
        const store = await PlanStore.open(file)
        const state = store.state
        rows.forEach((row, index) => state.rows.set(ids[index]!, {...row, extra: {}}))
        await store.write(state, {running: new Set()})
        store.close?.()

        const {text, plan, errors} = table(file)
        expect(errors).toEqual([])
        expect(text.startsWith(before)).toBe(true)
        const found = plan.state!.table!
        expect(found.columns).toEqual(['Agent', 'Status', 'Agent ID', 'Duration', 'Notes'])
        expect(found.rows.map((row) => row.agent)).toEqual(ids)
        rows.forEach((row, index) => {
          const read = found.rows[index]!
          expect(read.cells).toHaveLength(5)
          expect(read.status).toBe(row.status)
          // What was written is what reads back (one line, trimmed; a lone dash means none).
          expect(read.cells[2]!.value, 'Agent ID').toBe(normalizeCell(row.agentId))
          expect(read.cells[3]!.value, 'Duration').toBe(normalizeCell(row.duration))
          expect(read.cells[4]!.value, 'Notes').toBe(normalizeCell(row.notes))
        })
        // A GFM reader sees the same table: no extra rows, columns or HTML blocks.
        const tables = plan.sections.filter((section) => section.title === 'Execution State')
        expect(tables).toHaveLength(1)
      }),
      {
        numRuns: Number(process.env.FUZZ_RUNS ?? 50),
        seed: Number(process.env.FUZZ_SEED ?? 5),
        // Unicode whitespace at a cell's edge (no-break space, line separator, ideographic space): trim() removes it.
        examples: [[['pending', 'completed', 'failed', 'pending'].map((status, i) => ({status: status as (typeof statuses)[number], agentId: ['!\u2028', 'a\u00a0', '\u3000b', 'x\ufeff'][i]!, duration: '1s\u00a0', notes: 'note\u2029'}))]]
      }
    )
  })

  it('an agent’s failure text and result note with pipes, newlines, HTML and a trailing backslash stay inside their cells', async () => {
    const reason = 'left | right <script>alert(1)</script> \\| end \\'
    const {dir, plan} = await setupPlan({
      text: shellPlan({
        A: {script: `printf '%s\\n' 'line one' '${reason}' >&2\nexit 1`},
        B: {script: `printf '%s\\n' 'RESULT: SUCCESS' 'made a | b <b>bold</b>' 'second line | c'`},
        C: {script: 'true'}
      })
    })
    const result = await runCli(['run', plan, '--max-attempts', '1'], {cwd: dir})
    expect(result.exitCode).toBe(1)
    const {text, plan: parsed, errors} = table(plan)
    expect(errors).toEqual([])
    const found = parsed.state!.table!
    expect(found.rows.map((row) => row.agent)).toEqual(['A', 'B', 'C'])
    for (const row of found.rows) expect(row.cells).toHaveLength(5)
    const {rows} = await readTable(plan)
    expect(rows.A!.status).toBe('failed')
    expect(rows.A!.notes).toBe(`attempt 1: exit 1: ${reason}`)
    expect(rows.B!.status).toBe('completed')
    expect(rows.B!.notes).toContain('a | b <b>bold</b>')
    expect(rows.C!.status).toBe('completed')
    // The table is still a table line by line: every row line starts and ends with a pipe.
    const section = text.slice(text.indexOf('| Agent |'))
    const tableLines = section.slice(0, section.indexOf('\n\n')).split('\n')
    expect(tableLines).toHaveLength(5)
    for (const line of tableLines) expect(line).toMatch(/^\|.*\|$/)
  })
})
