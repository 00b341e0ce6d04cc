import {describe, expect, it} from 'vitest'
import {adoptWrite} from '../../../src/executor/adopt-write.js'
import {emptyRow, type RowState, type TableState} from '../../../src/store/table-state.js'
import {execTable, storeRow, type ExecTable} from '../../../src/executor/exec-row.js'
import type {WriteResult} from '../../../src/store/plan-store.js'

const row = (fields: Partial<RowState>): RowState => ({...emptyRow(), ...fields})
const table = (rows: Record<string, Partial<RowState>>): TableState => ({rows: new Map(Object.entries(rows).map(([id, f]) => [id, row(f)])), meta: {}})
/** The executor's table of these rows, and each row as the store would write it. */
const executors = (rows: Record<string, Partial<RowState>>): ExecTable => execTable(table(rows))
const written = (exec: ExecTable, id: string): RowState => storeRow(exec.rows.get(id)!)
const result = (state: TableState, humanEdits: WriteResult['humanEdits'], conflicts: WriteResult['conflicts'] = []): WriteResult => ({state, humanEdits, conflicts, bytes: 1, ms: 1})

/** What the executor takes of a write's merged hand edits while the agent runs (it launched after the write was issued). */
describe('adoptWrite, an agent running', () => {
  const running = {status: 'in_progress' as const, agentId: 'sh-1', notes: 'base: 1a2b'}

  it('takes the person’s Notes items and their own column, keeps its Status and Agent ID, and notes what it kept', () => {
    const mine = executors({A: {...running, extra: {Owner: ''}}})
    const merged = table({A: {status: 'completed', agentId: '', notes: 'base: 1a2b; TODO: ask Bob', extra: {Owner: 'bob'}}})
    const kept = adoptWrite(mine, result(merged, [
      {agent: 'A', column: 'Status', from: 'in_progress', to: 'completed'},
      {agent: 'A', column: 'Agent ID', from: 'sh-1', to: ''},
      {agent: 'A', column: 'Notes', from: 'base: 1a2b', to: 'base: 1a2b; TODO: ask Bob'},
      {agent: 'A', column: 'Owner', from: '', to: 'bob'}
    ]), new Set(['A']))
    expect(kept.map((k) => k.column)).toEqual(['Status', 'Agent ID'])
    expect(written(mine, 'A')).toEqual(row({...running, notes: 'base: 1a2b; TODO: ask Bob; conflict: Status kept in_progress, Agent ID kept sh-1', extra: {Owner: 'bob'}}))
  })

  it('a held status (no status mdplan knows) is taken only while the agent does not run', () => {
    const edit = [{agent: 'A', column: 'Status', from: 'pending', to: 'skipped'}]
    const idle = executors({A: {}})
    expect(adoptWrite(idle, result(table({A: {held: 'skipped'}}), edit), new Set())).toEqual([])
    expect(written(idle, 'A')).toEqual(row({held: 'skipped'}))
    const live = executors({A: running})
    expect(adoptWrite(live, result(table({A: {held: 'skipped', notes: 'base: 1a2b'}}), edit), new Set(['A'])).map((k) => k.to)).toEqual(['skipped'])
    expect(live.rows.get('A')!.held).toBeUndefined()
    expect(live.rows.get('A')!.status).toBe('in_progress')
  })
})
