import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {mergeText} from '../../../src/store/merge-text.js'

const base = ['# T', '', '<!-- journal -->', '', '## Agents', '', '| Agent | Status | Notes |', '|---|---|---|', '| A | pending | |', '| B | pending | |', '', 'Last updated: 1', ''].join('\n')

describe('mergeText', () => {
  it('applies both sides’ edits on different lines', () => {
    const older = base.replace('<!-- journal -->\n', '<!-- journal -->\n- journal 1\n')
    const newer = base.replace('| A | pending | |', '| A | completed | |').replace('Last updated: 1', 'Last updated: 2')
    expect(mergeText(base, older, newer)).toBe(older.replace('| A | pending | |', '| A | completed | |').replace('Last updated: 1', 'Last updated: 2'))
  })

  it('keeps both insertions at one place, newer first', () => {
    const older = base.replace('<!-- journal -->\n', '<!-- journal -->\n- journal 1\n')
    const newer = base.replace('<!-- journal -->\n', '<!-- journal -->\n- journal 2\n')
    expect(mergeText(base, older, newer)).toContain('<!-- journal -->\n- journal 2\n- journal 1\n\n## Agents')
  })

  it('merges a row both changed cell by cell', () => {
    const older = base.replace('| B | pending | |', '| B | pending | human 1 |')
    const newer = base.replace('| B | pending | |', '| B | failed | |')
    expect(mergeText(base, older, newer)).toContain('| B | failed | human 1 |\n')
  })

  it('returns a side unchanged when the other made no edit', () => {
    expect(mergeText(base, base, 'x')).toBe('x')
    expect(mergeText(base, 'y', base)).toBe('y')
  })

  it('agrees with a plain three-way merge when the sides edit disjoint lines', () => {
    // Unique lines: with repeated ones (blank lines) more than one alignment is right.
    const lines = base.split('\n').map((line, k) => `${line}${k}`)
    const base2 = lines.join('\n')
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(lines.length - 1), fc.string({maxLength: 5}), fc.boolean()), {maxLength: 6}), (edits) => {
        const older = lines.slice()
        const newer = lines.slice()
        for (const [at, text, side] of edits) {
          const target = side ? older : newer
          const other = side ? newer : older
          if (other[at] !== lines[at] || text.includes('\n')) continue
          target[at] = `${text}!${at}`
        }
        const expected = lines.map((line, k) => (older[k] !== line ? older[k] : newer[k]))
        expect(mergeText(base2, older.join('\n'), newer.join('\n'))).toBe(expected.join('\n'))
      })
    )
  })
})
