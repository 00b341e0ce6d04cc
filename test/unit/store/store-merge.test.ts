import fs from 'node:fs'
import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {mergeState} from '../../../src/store/merge-state.js'
import {PlanStore} from '../../../src/store/plan-store.js'
import {emptyRow, tableStateFromPlan, type RowState, type TableState} from '../../../src/store/table-state.js'
import {copyFixture, tickingClock} from '../../helpers/store-fixture.js'

const row = (fields: Partial<RowState> = {}): RowState => ({...emptyRow(), ...fields})
const table = (rows: Record<string, Partial<RowState>>, meta: TableState['meta'] = {}): TableState => ({
  rows: new Map(Object.entries(rows).map(([id, fields]) => [id, row(fields)])),
  meta
})

describe('mergeState', () => {
  const base = table({A: {status: 'in_progress', agentId: 'a1'}, B: {status: 'pending'}})

  it('takes mdplan’s cell when only mdplan changed it, the person’s when only they did', () => {
    const mine = table({A: {status: 'completed', agentId: 'a1', duration: '45s'}, B: {status: 'pending'}})
    const theirs = table({A: {status: 'in_progress', agentId: 'a1'}, B: {status: 'completed', notes: 'done by hand'}})
    const merged = mergeState(base, mine, theirs, new Set())
    expect(merged.state.rows.get('A')).toEqual(row({status: 'completed', agentId: 'a1', duration: '45s'}))
    expect(merged.state.rows.get('B')).toEqual(row({status: 'completed', notes: 'done by hand'}))
    expect(merged.humanEdits).toEqual([
      {agent: 'B', column: 'Status', from: 'pending', to: 'completed'},
      {agent: 'B', column: 'Notes', from: '', to: 'done by hand'}
    ])
    expect(merged.conflicts).toEqual([])
  })

  it('both changed a cell: the person wins unless the agent is running, and the row says so', () => {
    const mine = table({A: {status: 'completed', agentId: 'a1'}, B: {status: 'in_progress', agentId: 'b1'}})
    const theirs = table({A: {status: 'pending', agentId: 'a1'}, B: {status: 'completed'}})
    const idle = mergeState(base, mine, theirs, new Set())
    expect(idle.state.rows.get('A')!.status).toBe('pending')
    expect(idle.state.rows.get('A')!.notes).toBe('conflict: Status kept pending')
    expect(idle.conflicts).toContainEqual({agent: 'A', column: 'Status', mine: 'completed', theirs: 'pending', winner: 'person'})
    const running = mergeState(base, mine, theirs, new Set(['A', 'B']))
    expect(running.state.rows.get('A')!.status).toBe('completed')
    expect(running.state.rows.get('A')!.notes).toBe('conflict: Status kept completed')
    expect(running.state.rows.get('B')).toEqual(row({status: 'in_progress', agentId: 'b1', notes: 'conflict: Status kept in_progress'}))
  })

  it('the same new value on both sides is no conflict', () => {
    const mine = table({A: {status: 'completed', agentId: 'a1'}, B: {}})
    const merged = mergeState(base, mine, mine, new Set())
    expect(merged.conflicts).toEqual([])
    expect(merged.state.rows.get('A')!.status).toBe('completed')
  })

  it('re-adds a row the person deleted, keeps a row only the person has', () => {
    const mine = table({A: {status: 'completed'}, B: {status: 'in_progress'}})
    const theirs = table({A: {status: 'in_progress', agentId: 'a1'}, Z: {status: 'completed', notes: 'manual'}})
    theirs.rows.delete('B')
    const merged = mergeState(base, mine, theirs, new Set())
    expect([...merged.state.rows.keys()]).toEqual(['A', 'B', 'Z'])
    expect(merged.state.rows.get('B')!.status).toBe('in_progress')
    expect(merged.state.rows.get('Z')!.notes).toBe('manual')
    expect(merged.restored).toEqual(['B'])
  })

  it('merges user columns and meta lines the same way; Last updated is mdplan’s', () => {
    const b = table({A: {extra: {Owner: 'ana'}}}, {started: 's', lastUpdated: 'l1', build: 'not yet run'})
    const mine = table({A: {extra: {Owner: 'ana'}}}, {started: 's', lastUpdated: 'l2', build: 'pass'})
    const theirs = table({A: {extra: {Owner: 'bo'}}}, {started: 'edited', lastUpdated: 'hand', build: 'not yet run'})
    const merged = mergeState(b, mine, theirs, new Set())
    expect(merged.state.rows.get('A')!.extra).toEqual({Owner: 'bo'})
    expect(merged.state.meta).toEqual({started: 'edited', lastUpdated: 'l2', build: 'pass'})
  })
})

function setCell(file: string, agent: string, column: number, value: string): void {
  const text = fs.readFileSync(file, 'utf8')
  const lines = text.split('\n')
  const at = lines.findIndex((line) => line.replace(/\s/g, '').startsWith(`|${agent}|`))
  const cells = lines[at]!.split('|')
  cells[column + 1] = ` ${value} `
  lines[at] = cells.join('|')
  fs.writeFileSync(file, lines.join('\n'))
}

describe('PlanStore with hand edits between writes', () => {
  it('keeps edits outside the table and the person’s cells; status edits come back as instructions', async () => {
    const file = copyFixture('basic')
    const store = await PlanStore.open(file, {now: tickingClock()})
    let state = store.state
    state.rows.get('A')!.status = 'in_progress'
    state = (await store.write(state, {running: new Set(['A'])})).state

    // The person edits the Context, re-queues C's... and marks B completed, and writes a note on D.
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('Why   this change is made.', 'Why this change is made (edited by hand).'))
    setCell(file, 'B', 1, 'completed')
    setCell(file, 'D', 4, 'look at this \\| later')

    state.rows.get('A')!.status = 'completed'
    state.rows.get('A')!.duration = '45s'
    const result = await store.write(state, {running: new Set()})
    expect(result.humanEdits).toEqual([
      {agent: 'B', column: 'Status', from: 'pending', to: 'completed'},
      {agent: 'D', column: 'Notes', from: 'untouched, odd  spacing', to: 'look at this | later'}
    ])
    expect(result.state.rows.get('B')!.status).toBe('completed')
    const text = fs.readFileSync(file, 'utf8')
    expect(text).toContain('Why this change is made (edited by hand).')
    expect(text).toContain('| A | completed | — | 45s | |')
    expect(text).toContain('| B | completed | — | — |  odd   spacing  |')
    expect(text).toContain('|D|pending|—|—| look at this \\| later |')
    expect(tableStateFromPlan(parsePlan(text, file)).rows.get('D')!.notes).toBe('look at this | later')

    // The next write has nothing to merge: the fast path, same bytes for the rows.
    state = result.state
    state.rows.get('C')!.status = 'in_progress'
    const next = await store.write(state, {running: new Set(['C'])})
    expect(next.humanEdits).toEqual([])
    expect(fs.readFileSync(file, 'utf8')).toContain('|D|pending|—|—| look at this \\| later |')
  })

  it('a conflict on a running agent keeps mdplan’s value and notes it in the row', async () => {
    const file = copyFixture('basic')
    const store = await PlanStore.open(file, {now: tickingClock()})
    let state = store.state
    state.rows.get('A')!.status = 'in_progress'
    state = (await store.write(state, {running: new Set(['A'])})).state
    setCell(file, 'A', 1, 'pending')
    state.rows.get('A')!.status = 'completed'
    const result = await store.write(state, {running: new Set(['A'])})
    expect(result.conflicts).toEqual([{agent: 'A', column: 'Status', mine: 'completed', theirs: 'pending', winner: 'mdplan'}])
    expect(fs.readFileSync(file, 'utf8')).toContain('| A | completed | — | — | conflict: Status kept completed |')
  })

  it('a row the person deleted comes back', async () => {
    const file = copyFixture('basic')
    const store = await PlanStore.open(file, {now: tickingClock()})
    const state = store.state
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('| C | pending | — | — | |\n', ''))
    state.rows.get('A')!.status = 'in_progress'
    const result = await store.write(state, {running: new Set(['A'])})
    const text = fs.readFileSync(file, 'utf8')
    expect(text).toMatch(/\| B \|.*\n\| C \| pending \| — \| — \| \|\n\|D\|/)
    // Said once, for that save: the next write has nothing to say.
    expect(result.notices).toEqual([expect.stringMatching(/: a save deleted the row of C from the Execution State table; mdplan put it back.*delete its `### C:` section/)])
    expect((await store.write(state, {running: new Set(['A'])})).notices).toBeUndefined()
  })

  it('edits a section, then merges a table edit made before it', async () => {
    const file = copyFixture('basic')
    const store = await PlanStore.open(file, {now: tickingClock()})
    setCell(file, 'C', 1, 'completed')
    await store.editSection('Open Questions', (current) => {
      expect(current).toBeUndefined()
      return '## Open Questions\n\n### B: which db?\n- **answer**:\n'
    })
    let text = fs.readFileSync(file, 'utf8')
    expect(text).toMatch(/Build: not yet run\n$/)
    expect(text).toContain('```\n\n## Open Questions\n\n### B: which db?\n- **answer**:\n\n## Execution State\n')
    await store.editSection('DAG Visualization', (current) => `## DAG Visualization\n${current!.body.trimEnd()}\n\n\`\`\`mermaid\ngraph LR\n  A --> B\n\`\`\`\n`)
    const state = store.state
    expect(state.rows.get('C')!.status).toBe('completed')
    state.rows.get('A')!.status = 'in_progress'
    const result = await store.write(state, {running: new Set(['A'])})
    expect(result.humanEdits).toEqual([{agent: 'C', column: 'Status', from: 'pending', to: 'completed'}])
    text = fs.readFileSync(file, 'utf8')
    expect(text).toContain('```mermaid\ngraph LR\n  A --> B\n```\n\n## Open Questions')
    expect(text).toContain('| C | completed | — | — | |')
    expect(text).toContain('| A | in_progress | — | — | |')
  })

  it('a write that changes nothing writes nothing: same bytes, same mtime, Last updated kept', async () => {
    const file = copyFixture('padded')
    const before = fs.readFileSync(file)
    const mtime = fs.statSync(file).mtimeMs
    const store = await PlanStore.open(file, {now: tickingClock()})
    const state = store.state
    state.meta.lastUpdated = '2030-01-01T00:00:00Z'
    const result = await store.write(state, {running: new Set()})
    expect(result.bytes).toBe(0)
    expect(fs.readFileSync(file).equals(before)).toBe(true)
    expect(fs.statSync(file).mtimeMs).toBe(mtime)
    store.close()
  })

  it('stamps Last updated only with another change, in the format the file has', async () => {
    const file = copyFixture('basic')
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/Started: .*/, 'Started: 2026-02-18 11:58:36').replace(/Last updated: .*/, 'Last updated: 2026-02-18 12:09:30'))
    const store = await PlanStore.open(file, {now: () => new Date(2026, 1, 19, 8, 5, 7)})
    const state = store.state
    state.rows.get('A')!.status = 'completed'
    await store.write(state, {running: new Set()})
    const text = fs.readFileSync(file, 'utf8')
    expect(text).toContain('Last updated: 2026-02-19 08:05:07')
    expect(text).toContain('Started: 2026-02-18 11:58:36')
    store.close()
  })
})
