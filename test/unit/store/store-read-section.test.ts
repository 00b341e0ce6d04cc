import fs from 'node:fs'
import path from 'node:path'
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {locateStateSection} from '../../../src/store/locate-state-section.js'
import {readSection} from '../../../src/store/read-section.js'
import {readStateSection} from '../../../src/store/read-state-section.js'
import {stateLayout} from '../../../src/store/state-layout.js'
import {readMeta, readRows} from '../../../src/store/table-state.js'
import {storeFixtures} from '../../helpers/store-fixture.js'
import {sized} from '../../helpers/quick.js'

const fixtures = fs
  .readdirSync(storeFixtures)
  .filter((name) => fs.existsSync(path.join(storeFixtures, name, 'plan.md')))
  .map((name) => fs.readFileSync(path.join(storeFixtures, name, 'plan.md'), 'utf8').replace(/^\uFEFF/, ''))

/** What the full parser makes of the state section: the reference the line reader must match. */
function byParser(text: string) {
  const plan = parsePlan(text, 'plan.md')
  const layout = stateLayout(plan)
  return layout ? {layout, rows: readRows(plan), meta: readMeta(plan)} : undefined
}

/** The line reader's answer, or null when it leaves the text to the parser. */
function byLines(text: string) {
  const span = locateStateSection(text)
  if (!span) return span
  const read = readStateSection(text, span)
  return read && 'layout' in read ? read : read === null ? null : undefined
}

describe('the state section read from its lines', () => {
  it.each(fixtures.map((text, i) => [i, text]))('fixture %i: the same layout, rows and meta as the full parse', (_, text) => {
    const lines = byLines(text)
    if (lines === null) return expect(byParser(text)).toBeDefined()
    expect(lines).toEqual(byParser(text))
  })

  const pieces = [
    '# Parallel Plan: t',
    '## Agents',
    '### A: a',
    '- **depends_on**: []',
    '## Context',
    '## Execution State',
    '## Execution state:',
    '## DAG Visualization',
    '# Top',
    '### Deep',
    '_managed by mdplan_',
    '| Agent | Status | Agent ID | Duration | Notes |',
    '|-------|--------|----------|----------|-------|',
    '| Agent | Status |',
    '|---|---|',
    '| :--- | ---: |',
    '| Name | Other |',
    '| A | pending | — | — | |',
    '| A | completed | a1 | 4s | a \\| b |',
    '|B|in progress|—|—|x|',
    '| `C` | failed |',
    '| **D** | Done | | | |',
    'no pipe here',
    'Started: —',
    'Last updated: 2026-02-18 12:09:30',
    '**Build:** pass',
    'Integration: —',
    '```',
    '~~~',
    '<!-- note -->',
    '<div>',
    '---',
    '===',
    '- item | with pipe',
    '> quote | pipe',
    '    ## indented code',
    '  ## two spaces',
    ''
  ]
  const tricky = new Set(['```', '~~~', '<!-- note -->', '<div>', '---', '===', '  ## two spaces'])
  const piece = fc.oneof({arbitrary: fc.constantFrom(...pieces.filter((p) => !tricky.has(p))), weight: 12}, {arbitrary: fc.constantFrom(...tricky), weight: 1})
  const some = (max: number) => fc.array(piece, {maxLength: max})
  const row = fc.constantFrom('| A | pending | — | — | |', '| A | completed | a1 | 4s | a \\| b |', '|B|in progress|—|—|x|', '| `C` | failed |', '| **D** | Done | | | |', '| E | needs-input | x | y | z | extra |', '| | pending |')
  /** Mostly a state section with a table in it, amid random lines: the reader's usual input, and its edges. */
  const document = fc
    .tuple(
      some(8),
      fc.constantFrom('## Execution State', '## Execution state:', '##  Execution_State'),
      some(2),
      fc.oneof(
        {
          arbitrary: fc.constantFrom(
            ['| Agent | Status | Agent ID | Duration | Notes |', '|-------|--------|----------|----------|-------|'],
            ['| Agent | Status |', '|---|---|'],
            ['Agent | Status | Notes', '---|---|---'],
            ['| Agent | Status | Owner |', '| :--- | ---: | --- |']
          ),
          weight: 6
        },
        {arbitrary: fc.constantFrom(['| Name | Other |', '|---|---|'], ['| Agent | Status |', 'no delimiter'], ['| Agent | Status | Notes |', '|---|---|']), weight: 1}
      ),
      fc.array(row, {maxLength: 6}),
      some(5),
      some(4)
    )
    .map(([before, heading, pre, table, rows, post, after]) => [...before, heading, '', ...pre, '', ...table, ...rows, ...post, ...after])

  it('random documents: wherever the line reader answers, it answers as the parser does', () => {
    let answered = 0
    const runs = sized(3000, 1000)
    fc.assert(
      fc.property(document, fc.constantFrom('\n', '\r\n'), (picked, eol) => {
        const text = picked.join(eol)
        const lines = byLines(text)
        if (lines === null) return
        const parsed = byParser(text)
        if (lines === undefined) {
          // No section, or one whose table reads as damaged: the parser finds no state table either.
          expect(parsed).toBeUndefined()
          return
        }
        expect(lines).toEqual(parsed)
        answered++
      }),
      {numRuns: runs}
    )
    // The comparison ran on many tables, not only on texts the reader left to the parser (one in ten, at least).
    expect(answered).toBeGreaterThan(runs / 10)
  })

  it('says which line is broken when the delimiter row is gone', () => {
    const text = ['## Agents', '', '### A: a', '', '## Execution State', '', '| Agent | Status |', '| A | pending |', ''].join('\n')
    const found = readSection(text, (source) => parsePlan(source, 'plan.md'))
    expect(found).toMatchObject({offset: text.indexOf('| A |'), noTable: false})
  })
})
