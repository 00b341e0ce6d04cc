import {describe, expect, it} from 'vitest'
import {findConflictMarkers} from '../../../src/plan/find-conflict-markers.js'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {leftoverConflicts} from '../../../src/merge/leftover-conflicts.js'

const lines = (text: string) => findConflictMarkers(text).map((region) => [text.slice(0, region.start).split('\n').length, region.marker])

describe('findConflictMarkers', () => {
  it('finds git’s and diff3’s regions, CRLF included, at their first marker line', () => {
    expect(lines('a\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> b\nz\n')).toEqual([[2, '<<<<<<< HEAD']])
    expect(lines('a\r\n<<<<<<< ours\r\nx\r\n||||||| base\r\nw\r\n=======\r\ny\r\n>>>>>>> theirs\r\n')).toEqual([[2, '<<<<<<< ours']])
    expect(lines('<<<<<<<\nx\n')).toEqual([[1, '<<<<<<<']])
  })

  it('half a resolution is still a conflict: a lone closer or base marker', () => {
    expect(lines('x\n=======\ny\n>>>>>>> theirs\n')).toEqual([[4, '>>>>>>> theirs']])
    expect(lines('||||||| base\nw\n=======\n')).toEqual([[1, '||||||| base']])
  })

  it('is not fooled by Markdown: a setext underline, indented or longer runs, quotes', () => {
    expect(lines('Title\n=======\n\n    <<<<<<< in a prompt\n<<<<<<<< eight\n> quoted <<<<<<< x\n>>>>>>>> eight\n')).toEqual([])
  })
})

describe('a plan with conflict markers', () => {
  const plan = (state: string) =>
    `# P\n\n## Agents\n\n### A: a\n- **prompt**: |\n    true\n\n## Execution State\n\n| Agent | Status |\n|---|---|\n${state}\nStarted: —\n`

  it('is an error at the marker, in the table (damaged-state-table) and elsewhere (conflict-markers)', () => {
    const conflicted = plan('<<<<<<< HEAD\n| A | completed |\n=======\n| A | failed |\n>>>>>>> theirs\n')
    const errors = parsePlan(conflicted, 'p.md').messages.filter((m) => m.severity === 'error')
    expect(errors.map((m) => [m.rule, 'start' in m.place! ? m.place.start.line : 0])).toEqual([['damaged-state-table', 13]])
    const inPrompt = plan('| A | pending |\n').replace('    true\n', '<<<<<<< HEAD\n    true\n=======\n    false\n>>>>>>> b\n')
    expect(parsePlan(inPrompt, 'p.md').messages.filter((m) => m.severity === 'error').map((m) => [m.rule, 'start' in m.place! ? m.place.start.line : 0])).toEqual([
      ['conflict-markers', 7]
    ])
  })

  it('a clean plan with a setext heading and markers inside a prompt’s indent has none', () => {
    const clean = plan('| A | pending |\n').replace('# P\n', 'P\n=======\n').replace('    true\n', '    echo "<<<<<<< not a marker"\n    true\n')
    expect(parsePlan(clean, 'p.md').messages.filter((m) => m.rule === 'conflict-markers' || m.rule === 'damaged-state-table')).toEqual([])
  })
})

describe('leftoverConflicts', () => {
  it('names the driver’s row and question markers, and counts git’s as text', () => {
    const text = 'a\n<<<<<<< ours: agent B: completed on ours, re-queued (pending) on theirs\nx\n=======\ny\n>>>>>>> theirs: agent B\n<<<<<<< ours: open question of agent C\n=======\n>>>>>>> theirs: open question of agent C\n<<<<<<< ours\n=======\n>>>>>>> theirs\n'
    expect(leftoverConflicts(text)).toEqual([
      {line: 2, kind: 'row', agent: 'B', reason: 'completed on ours, re-queued (pending) on theirs'},
      {line: 7, kind: 'question', agent: 'C'},
      {line: 10, kind: 'text'}
    ])
  })
})
