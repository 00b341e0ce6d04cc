import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {PlanStore} from '../../../src/store/plan-store.js'
import {RowHistory} from '../../../src/store/row-history.js'
import type {RowState, TableState} from '../../../src/store/table-state.js'
import {VersionHistory} from '../../../src/store/version-history.js'
import {WrittenVersions} from '../../../src/store/written-versions.js'
import {tickingClock} from '../../helpers/store-fixture.js'
import {shellPlan} from '../../helpers/run-cli.js'
import {sized} from '../../helpers/quick.js'

/** Another program's save: a temp file renamed over the plan. */
function save(file: string, text: string): void {
  fs.writeFileSync(`${file}.swp`, text)
  fs.renameSync(`${file}.swp`, file)
}

function bigPlan(count: number): {file: string; ids: string[]} {
  const ids = Array.from({length: count}, (_, i) => `A${i + 1}`)
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mdplan-row-history-')), 'plan.md')
  fs.writeFileSync(file, shellPlan(Object.fromEntries(ids.map((id) => [id, {script: 'true'}]))))
  return {file, ids}
}

/** The buffer with `note` typed into the Notes cell of `agent`'s row (empty, or items after which it goes). */
function typeNote(buffer: string, agent: string, note: string): string {
  const line = buffer.split('\n').find((row) => row.startsWith(`| ${agent} |`))!
  return buffer.replace(line, line.endsWith('| |') ? line.replace(/\| \|$/, `| ${note} |`) : line.replace(/ \|$/, `; ${note} |`))
}

const row = (status: RowState['status'], notes = ''): RowState => ({status, agentId: '', duration: '', notes, extra: {}})

describe('every table mdplan wrote, rebuilt row by row (a hand edit in a buffer loaded long ago)', () => {
  const count = sized(1000, 250)
  const last = `A${count}`
  it(`${count} agents, thousands of writes in one store and the next: a note typed into a buffer loaded after the 20th write is the only edit`, async () => {
    const {file, ids} = bigPlan(count)
    const first = await PlanStore.open(file, {now: tickingClock(), history: true})
    let state = first.state
    let buffer = ''
    let writes = 0
    const write = async (store: PlanStore) => {
      state = (await store.write(state, {running: new Set()})).state
      if (++writes === 20) buffer = fs.readFileSync(file, 'utf8')
    }
    for (const id of ids) {
      state.rows.get(id)!.status = 'in_progress'
      await write(first)
      state.rows.get(id)!.status = 'completed'
      state.rows.get(id)!.agentId = `sh-${id}`
      await write(first)
    }
    first.close()
    // The next run: a thousand more versions (a note on every row), then the buffer of run 1 is saved.
    const second = await PlanStore.open(file, {now: tickingClock(Date.UTC(2026, 1, 2)), history: true})
    state = second.state
    for (const id of ids) {
      state.rows.get(id)!.notes = `checked ${id}`
      await write(second)
    }
    expect(writes).toBe(3 * count)
    save(file, typeNote(buffer, last, `TODO: look at ${last}`))
    const result = await second.write(state, {running: new Set()})
    expect(result.humanEdits).toEqual([{agent: last, column: 'Notes', from: '', to: `TODO: look at ${last}`}])
    const rows = second.state.rows
    expect(ids.filter((id) => rows.get(id)!.status !== 'completed')).toEqual([])
    expect(rows.get(last)!.notes.split('; ').sort()).toEqual([`TODO: look at ${last}`, `checked ${last}`])
    expect(rows.get('A1')!.notes).toBe('checked A1')
    second.close()
    // Disk: a line per version, most one row long; the start tables alone are whole.
    expect(fs.statSync(new VersionHistory(file).file).size).toBeLessThan(1 << 20)
  }, 120_000)

  it('the next run writing in the second the last one ended: an old row put back into the current table is that row alone, not the last run\'s table', async () => {
    const {file} = bigPlan(2)
    const clock = () => new Date(Date.UTC(2026, 1, 1, 10, 0, 0))
    const first = await PlanStore.open(file, {now: clock, history: true})
    let state = first.state
    state.meta.started = '2026-02-01T09:59:57Z'
    for (const [id, agentId] of [['A1', 'sh-1'], ['A2', 'sh-2']] as const) Object.assign(state.rows.get(id)!, {status: 'completed', agentId, duration: '3s', notes: 'base: 0123'})
    await first.write(state, {running: new Set()})
    first.close()
    const afterRun1 = fs.readFileSync(file, 'utf8')
    const d = (text: string) => text.split('\n').find((line) => line.startsWith('| A2 |'))!
    // Between runs: both re-queued. Run 2 starts A1 in the same second (the same `Last updated:`).
    save(file, afterRun1.replace(/^\| (A[12]) \| completed \|.*$/gm, '| $1 | pending | — | — | |'))
    const second = await PlanStore.open(file, {now: clock, history: true})
    state = second.state
    state.meta.started = '2026-02-01T10:00:00Z'
    Object.assign(state.rows.get('A1')!, {status: 'in_progress', agentId: 'sh-3', notes: 'base: 0123'})
    state = (await second.write(state, {running: new Set(['A1'])})).state
    const now = fs.readFileSync(file, 'utf8')
    expect(now).toContain('Last updated: 2026-02-01T10:00:00Z')
    // The person puts A2's row of run 1 back (an undo of one re-queue, by hand).
    save(file, now.replace(d(now), d(afterRun1)))
    const result = await second.write(state, {running: new Set(['A1'])})
    expect(result.humanEdits.map((edit) => `${edit.agent} ${edit.column}`).sort()).toEqual(['A2 Agent ID', 'A2 Duration', 'A2 Notes', 'A2 Status'])
    expect(second.state.rows.get('A2')!.status).toBe('completed')
    expect(second.state.rows.get('A1')).toMatchObject({status: 'in_progress', agentId: 'sh-3'})
    second.close()
  })

  it('a log cut back past its bound keeps the table as it was at its first kept line: versions after it are rebuilt, older ones are not guessed', () => {
    const {file} = bigPlan(3)
    const history = new VersionHistory(file)
    const tables = new RowHistory()
    const at = (i: number): TableState => ({
      rows: new Map([
        ['A1', row('completed', `pass ${i}`)],
        ['A2', row(i % 2 === 0 ? 'in_progress' : 'completed')],
        ['A3', row('pending', i >= 30_000 ? 'late' : '')]
      ]),
      meta: {started: 'then', lastUpdated: `stamp ${i}`, build: 'not yet run'}
    })
    const lines = Array.from({length: 40_000}, (_, i) => ({version: `v${i}`, delta: tables.record(i + 1, at(i)), ...(i === 0 && {open: true})}))
    history.append(lines)
    const versions = new WrittenVersions(new VersionHistory(file))
    // The newest 16384 lines, and the start before them by its digest alone.
    expect(fs.readFileSync(history.file, 'utf8').split('\n').filter(Boolean).length).toBe(16_385)
    const latest = at(39_999)
    // A buffer of version 30000 with a note typed into A3: its table, rebuilt from the first line kept on (A3's `late` came at
    // 30000; A1 and A2 change at every version, more often than a row's values are kept: their saved rows, no edit read in them).
    const theirs = at(30_000)
    theirs.rows.get('A3')!.notes = 'late; mine'
    expect(versions.parentOf(theirs, latest)).toEqual(at(30_000))
    // A buffer of version 100 (cut away): not rebuilt from what is left.
    const old = at(100)
    old.rows.get('A3')!.notes = 'mine'
    expect(versions.parentOf(old, latest)).toBe(latest)
  })

  it('a version line damaged mid-file: no table after it is rebuilt with a value that was no longer there', () => {
    const {file} = bigPlan(2)
    const history = new VersionHistory(file)
    const meta = (stamp: string) => ({started: 'then', lastUpdated: stamp})
    history.append([{version: 'v1', open: true, delta: {rows: [['A1', row('pending')], ['A2', row('pending')]], meta: meta('s1')}}])
    history.append([{version: 'v3', delta: {rows: [['A1', row('completed')]], meta: meta('s3')}}])
    // v2 set A2 completed; its line was damaged (its rows are not rows).
    const lines = fs.readFileSync(history.file, 'utf8').split('\n')
    lines.splice(1, 0, JSON.stringify({v: 'v2', r: 'garbage', m: meta('s2')}))
    fs.writeFileSync(history.file, lines.join('\n'))
    const versions = new WrittenVersions(new VersionHistory(file))
    const latest: TableState = {rows: new Map([['A1', row('in_progress')], ['A2', row('completed')]]), meta: meta('s4')}
    // A buffer of v3 with a note typed into A1: A2 is the saved row (completed), not v1's pending read back as an edit to completed.
    const theirs: TableState = {rows: new Map([['A1', row('completed', 'mine')], ['A2', row('completed')]]), meta: meta('s3')}
    const base = versions.parentOf(theirs, latest)
    expect(base.rows.get('A1')).toEqual(row('completed'))
    expect(base.rows.get('A2')).toEqual(row('completed'))
  })

  it('memory stays bounded: a row changed ten thousand times keeps its last values; a version older than them is not rebuilt', () => {
    const tables = new RowHistory()
    for (let i = 1; i <= 10_000; i++) tables.record(i, {rows: new Map([['A', row('pending', `n${i}`)], ['B', row('pending')]]), meta: {lastUpdated: `s${i}`}})
    expect(tables.at(10_000)!.rows.get('A')!.notes).toBe('n10000')
    expect(tables.at(9_990)!.rows.get('A')!.notes).toBe('n9990')
    expect(tables.at(100)).toBeUndefined()
    // With the saved row given for a row whose values that far back are gone: B is known, A is the saved one.
    expect(tables.at(100, () => row('pending', 'saved'))!.rows).toEqual(new Map([['A', row('pending', 'saved')], ['B', row('pending')]]))
    expect(tables.stamped({lastUpdated: 's9990'})).toEqual([9990])
    expect(tables.stamped({lastUpdated: 's9990', started: 'another run'})).toEqual([])
  })

  it('a row object recorded again is the same row, but one that went away and came back, or one after a forgotten version, is recorded anew; a row gone is found when another came in its place', () => {
    const tables = new RowHistory()
    const a = row('pending')
    const b = row('completed')
    const meta = (stamp: string) => ({lastUpdated: stamp})
    expect(tables.record(1, {rows: new Map([['A', a], ['B', b]]), meta: meta('s1')}).rows).toHaveLength(2)
    // The same objects: nothing changed.
    expect(tables.record(2, {rows: new Map([['A', a], ['B', b]]), meta: meta('s2')}).rows).toEqual([])
    // A goes away (a person deleted its row), then the same object comes back: both are versions of their own.
    expect(tables.record(3, {rows: new Map([['B', b]]), meta: meta('s3')}).rows).toEqual([['A', null]])
    expect(tables.record(4, {rows: new Map([['A', a], ['B', b]]), meta: meta('s4')}).rows).toEqual([['A', a]])
    expect(tables.at(3)!.rows.has('A')).toBe(false)
    expect(tables.at(4)!.rows.get('A')).toEqual(a)
    // As many rows as before, one of them new: the one that went away is found all the same.
    const c = row('pending')
    expect(tables.record(5, {rows: new Map([['A', a], ['C', c]]), meta: meta('s5')}).rows).toEqual([['C', c], ['B', null]])
    expect([...tables.at(5)!.rows.keys()]).toEqual(['A', 'C'])
    // After a version whose changes are unknown, the same object is recorded again (its value is known from there on).
    tables.forget()
    expect(tables.record(6, {rows: new Map([['A', a], ['C', c]]), meta: meta('s6')}).rows).toEqual([['A', a], ['C', c]])
    // B's values before the forgotten version are gone: unknown, unless the caller gives one.
    expect(tables.at(6)).toBeUndefined()
    expect(tables.at(6, () => null)!.rows).toEqual(new Map([['A', a], ['C', c]]))
  })
})
