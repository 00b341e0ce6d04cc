import fs from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {PlanStore} from '../../../src/store/plan-store.js'
import {VersionHistory} from '../../../src/store/version-history.js'
import {copyFixture, tickingClock} from '../../helpers/store-fixture.js'

/** Another program's save: a temp file renamed over the plan. */
function save(file: string, text: string): void {
  fs.writeFileSync(`${file}.swp`, text)
  fs.renameSync(`${file}.swp`, file)
}

const status = (text: string, agent: string) => text.split('\n').find((line) => line.replace(/\s/g, '').startsWith(`|${agent}|`))!.split('|')[2]!.trim()

describe('versions kept across runs (.mdplan/versions/)', () => {
  it('a table an earlier store wrote or read at its start, saved during a later one, changes no row; the run is told which rows it kept', async () => {
    const file = copyFixture('basic')
    const pristine = fs.readFileSync(file, 'utf8')
    const first = await PlanStore.open(file, {now: tickingClock(), history: true})
    let state = first.state
    state.rows.get('A')!.status = 'in_progress'
    state = (await first.write(state, {running: new Set(['A'])})).state
    const running = fs.readFileSync(file, 'utf8')
    state.rows.get('A')!.status = 'completed'
    await first.write(state, {running: new Set()})
    first.close()
    expect(fs.existsSync(path.join(path.dirname(file), '.mdplan', 'versions', 'plan.md.log'))).toBe(true)

    // The next run: it never wrote or read those tables itself.
    const second = await PlanStore.open(file, {now: tickingClock(Date.UTC(2026, 1, 2)), history: true})
    state = second.state
    state.rows.get('B')!.status = 'completed'
    state = (await second.write(state, {running: new Set()})).state
    for (const old of [pristine, running]) {
      save(file, old.replace('# ', '# Renamed: '))
      const result = await second.write(state, {running: new Set()})
      expect(result.humanEdits).toEqual([])
      const text = fs.readFileSync(file, 'utf8')
      expect([status(text, 'A'), status(text, 'B')]).toEqual(['completed', 'completed'])
      expect(text).toContain('# Renamed: ')
      expect(result.notices).toEqual([expect.stringMatching(/a save brought back an Execution State table mdplan wrote or read earlier .*rows for A, B \(a stale buffer is not an edit\)/)])
      state = result.state
    }
    // The same stale table saved again: no second notice.
    save(file, pristine)
    expect((await second.write(state, {running: new Set()})).notices).toBeUndefined()
    second.close()
  })

  it('without the history (a one-off writer) nothing is kept beside the plan', async () => {
    const file = copyFixture('basic')
    const store = await PlanStore.open(file, {now: tickingClock()})
    const state = store.state
    state.rows.get('A')!.status = 'completed'
    await store.write(state, {running: new Set()})
    store.close()
    expect(fs.readdirSync(path.dirname(file))).toEqual(['plan.md'])
  })

  it('a person’s re-queue in a later run is an edit, even when the row is exactly as it was before the first run', async () => {
    const file = copyFixture('basic')
    const first = await PlanStore.open(file, {now: tickingClock(), history: true})
    const state = first.state
    state.rows.get('A')!.status = 'completed'
    state.rows.get('A')!.agentId = 'sh-1'
    await first.write(state, {running: new Set()})
    first.close()
    const second = await PlanStore.open(file, {now: tickingClock(Date.UTC(2026, 1, 2)), history: true})
    const text = fs.readFileSync(file, 'utf8')
    save(file, text.replace(/^\| A \| completed \| sh-1 \|.*$/m, '| A | pending | — | — | |'))
    const result = await second.write(second.state, {running: new Set()})
    expect(result.humanEdits).toContainEqual({agent: 'A', column: 'Status', from: 'completed', to: 'pending'})
    expect(result.notices).toBeUndefined()
    second.close()
  })

  it('a bulk re-queue in a later run (every row cleared back to how it read before the first run, the stamp kept) is an edit of every row', async () => {
    const file = copyFixture('basic')
    const first = await PlanStore.open(file, {now: tickingClock(), history: true})
    const state = first.state
    for (const row of state.rows.values()) Object.assign(row, {status: 'completed', agentId: 'sh-1', duration: '1s'})
    await first.write(state, {running: new Set()})
    first.close()
    const second = await PlanStore.open(file, {now: tickingClock(Date.UTC(2026, 1, 2)), history: true})
    save(file, fs.readFileSync(file, 'utf8').replace(/^\|\s*([A-D])\s*\|.*$/gm, '| $1 | pending | — | — | |'))
    const result = await second.write(second.state, {running: new Set()})
    expect(result.humanEdits.filter((edit) => edit.column === 'Status').map((edit) => `${edit.agent}:${edit.to}`)).toEqual(['A:pending', 'B:pending', 'C:pending', 'D:pending'])
    second.close()
  })
})

describe('an edit made in a buffer loaded long ago', () => {
  it('60 writes old, with a note typed into it: the note is the edit, no row goes back', async () => {
    const file = copyFixture('ten-agents')
    const store = await PlanStore.open(file, {now: tickingClock(), history: true})
    let state = store.state
    const ids = [...state.rows.keys()]
    let buffer = ''
    for (let n = 0; n < 80; n++) {
      if (n === 20) buffer = fs.readFileSync(file, 'utf8')
      const id = ids[n % ids.length]!
      state.rows.get(id)!.status = n < 10 ? 'in_progress' : 'completed'
      state.rows.get(id)!.duration = `${n}s`
      state = (await store.write(state, {running: new Set()})).state
    }
    const row = buffer.split('\n').find((line) => line.startsWith(`| ${ids[3]} |`))!
    save(file, buffer.replace(row, row.replace(/\| *$/, 'typed by hand |')))
    const result = await store.write(state, {running: new Set()})
    expect(result.humanEdits).toEqual([{agent: ids[3], column: 'Notes', from: '', to: 'typed by hand'}])
    const text = fs.readFileSync(file, 'utf8')
    expect(ids.map((id) => status(text, id))).toEqual(ids.map(() => 'completed'))
    store.close()
  })
})

describe('an undo of a hand edit', () => {
  it('a save of the version before a merged edit puts back the cells that edit changed, and says so', async () => {
    const file = copyFixture('basic')
    const store = await PlanStore.open(file, {now: tickingClock(), history: true})
    let state = store.state
    state.rows.get('A')!.status = 'in_progress'
    state = (await store.write(state, {running: new Set(['A'])})).state
    const before = fs.readFileSync(file, 'utf8')
    save(file, before.replace('| C | pending | — | — | |', '| C | completed | — | — | |'))
    const skip = await store.write(state, {running: new Set(['A'])})
    expect(skip.humanEdits).toEqual([{agent: 'C', column: 'Status', from: 'pending', to: 'completed'}])
    state = skip.state
    // Meanwhile mdplan changes another row: the undo is still an undo of C's cell alone.
    state.rows.get('B')!.status = 'in_progress'
    state = (await store.write(state, {running: new Set(['A', 'B'])})).state
    save(file, before)
    const undo = await store.write(state, {running: new Set(['A', 'B'])})
    expect(undo.humanEdits).toEqual([{agent: 'C', column: 'Status', from: 'completed', to: 'pending'}])
    expect(undo.notices).toEqual([expect.stringMatching(/^C: Status is back to "pending", as it was before the edit to "completed": taken as an undo of that edit/), expect.stringMatching(/rows for B \(/)])
    const text = fs.readFileSync(file, 'utf8')
    expect([status(text, 'A'), status(text, 'B'), status(text, 'C')]).toEqual(['in_progress', 'in_progress', 'pending'])
    // Saved once more, the same version is now only stale: the undo is not taken twice, nothing changes.
    save(file, before)
    const again = await store.write(undo.state, {running: new Set(['A', 'B'])})
    expect(again.humanEdits).toEqual([])
    store.close()
  })

  it('the same version in a buffer older around the table too (a new title in it) is an older buffer: the edit stays, and the run is told', async () => {
    const file = copyFixture('basic')
    const store = await PlanStore.open(file, {now: tickingClock(), history: true})
    let state = store.state
    state.rows.get('A')!.status = 'in_progress'
    state = (await store.write(state, {running: new Set(['A'])})).state
    const before = fs.readFileSync(file, 'utf8')
    save(file, before.replace('| C | pending | — | — | |', '| C | pending | — | — | hand note |'))
    state = (await store.write(state, {running: new Set(['A'])})).state
    save(file, before.replace(/^# .*$/m, '# A stale title'))
    const result = await store.write(state, {running: new Set(['A'])})
    expect(result.humanEdits).toEqual([])
    const text = fs.readFileSync(file, 'utf8')
    expect(text).toContain('| C | pending | — | — | hand note |')
    expect(text).toContain('# A stale title')
    expect(result.notices).toEqual([expect.stringMatching(/^C: Notes was saved back to "—", as it was before the edit to "hand note", in a buffer older than the file around the table too: taken for an older buffer, kept "hand note"/)])
    store.close()
  })

  it('an undo that comes after mdplan changed the cell again keeps mdplan’s value, and says so', async () => {
    const file = copyFixture('basic')
    const store = await PlanStore.open(file, {now: tickingClock(), history: true})
    let state = store.state
    state.rows.get('A')!.status = 'completed'
    state = (await store.write(state, {running: new Set()})).state
    const before = fs.readFileSync(file, 'utf8')
    save(file, before.replace(/^\| A \| completed \|/m, '| A | pending |'))
    state = (await store.write(state, {running: new Set()})).state
    expect(state.rows.get('A')!.status).toBe('pending')
    // The re-queue is taken: A runs again.
    state.rows.get('A')!.status = 'in_progress'
    state = (await store.write(state, {running: new Set(['A'])})).state
    save(file, before)
    const late = await store.write(state, {running: new Set(['A'])})
    expect(late.humanEdits).toEqual([])
    expect(status(fs.readFileSync(file, 'utf8'), 'A')).toBe('in_progress')
    expect(late.notices).toContainEqual(expect.stringMatching(/^A: Status was saved back to "completed", as it was before the edit to "pending", but mdplan has changed it since \("in_progress"\): kept mdplan's value/))
    store.close()
  })
})

describe('the history file', () => {
  it('a run that opens the plan and never writes it (refused before its first launch) leaves nothing beside the plan', async () => {
    const file = copyFixture('basic')
    const store = await PlanStore.open(file, {now: tickingClock(), history: true})
    store.close()
    expect(fs.readdirSync(path.dirname(file))).toEqual(['plan.md'])
    // The version it started from is kept once the run writes: the next store knows it.
    const next = await PlanStore.open(file, {now: tickingClock(), history: true})
    const state = next.state
    state.rows.get('A')!.status = 'completed'
    await next.write(state, {running: new Set()})
    next.close()
    const entries = new VersionHistory(file).load()
    expect(entries.length).toBeGreaterThanOrEqual(2)
    expect(fs.existsSync(new VersionHistory(file).tablesFile)).toBe(true)
  })

  it('a line a crash cut short does not swallow the next entry', () => {
    const file = copyFixture('basic')
    const history = new VersionHistory(file)
    history.append([{version: 'before'}])
    fs.appendFileSync(history.file, '{"v":"cut sh')
    const next = new VersionHistory(file)
    expect(next.load()).toEqual([{version: 'before'}])
    next.append([{version: 'after'}])
    expect(new VersionHistory(file).load()).toEqual([{version: 'before'}, {version: 'after'}])
  })

  it('is cut back past its bound, keeping the newest lines and the versions read at a start', () => {
    const file = copyFixture('basic')
    const history = new VersionHistory(file)
    history.append([{version: 'first-open', open: true}])
    history.append(Array.from({length: 33_000}, (_, i) => ({version: `v${i}`})))
    history.append([{edit: {agent: 'A', column: 'Status', from: 'completed', to: 'pending'}}])
    fs.appendFileSync(history.file, '{"v":"cut sh')
    const entries = new VersionHistory(file).load()
    expect(entries.length).toBe(16_385)
    expect(entries[0]).toEqual({version: 'first-open', open: true})
    expect(entries.at(-1)).toEqual({edit: {agent: 'A', column: 'Status', from: 'completed', to: 'pending'}})
    expect(fs.readFileSync(history.file, 'utf8').split('\n').filter(Boolean).length).toBe(16_385)
    expect(fs.readFileSync(path.join(path.dirname(file), '.mdplan', '.gitignore'), 'utf8')).toBe('*\n')
  })

  it('keeps the tables the last 8 runs started from, whole, newest first; an edit made in a buffer of one is merged from it', async () => {
    const file = copyFixture('basic')
    let buffer = ''
    for (let run = 0; run < 10; run++) {
      if (run === 5) buffer = fs.readFileSync(file, 'utf8')
      const store = await PlanStore.open(file, {now: tickingClock(Date.UTC(2026, 1, 1 + run)), history: true})
      const state = store.state
      state.rows.get('A')!.notes = `run ${run}`
      await store.write(state, {running: new Set()})
      store.close()
    }
    const tables = new VersionHistory(file).tables()
    expect(tables.map((table) => table.rows.get('A')!.notes)).toEqual(['run 8', 'run 7', 'run 6', 'run 5', 'run 4', 'run 3', 'run 2', 'run 1'])
    // The buffer run 5 started from, with a note typed into C's row, saved during run 10: C's note is the edit, A's older note is not.
    const store = await PlanStore.open(file, {now: tickingClock(Date.UTC(2026, 2, 1)), history: true})
    save(file, buffer.replace('| C | pending | — | — | |', '| C | pending | — | — | look here |'))
    const result = await store.write(store.state, {running: new Set()})
    expect(result.humanEdits).toEqual([{agent: 'C', column: 'Notes', from: '', to: 'look here'}])
    expect(fs.readFileSync(file, 'utf8')).toMatch(/\| A \| pending \| — \| — \| run 9 \|/)
    store.close()
  })
})

describe('a table found at a store\'s start that an earlier store wrote', () => {
  it('in the same second as the last write, with a note typed in: the running row it shows is the last run\'s again, the note kept', async () => {
    const file = copyFixture('basic')
    const second = new Date(Date.UTC(2026, 1, 1, 10, 0, 0))
    const first = await PlanStore.open(file, {now: () => second, history: true})
    let state = first.state
    state.rows.get('A')!.status = 'in_progress'
    state.rows.get('A')!.agentId = 'sh-aaaa0001'
    state = (await first.write(state, {running: new Set(['A'])})).state
    const buffer = fs.readFileSync(file, 'utf8')
    state.rows.get('A')!.status = 'completed'
    await first.write(state, {running: new Set()})
    first.close()
    // The editor's buffer, loaded while A ran (the same `Last updated:` second), with a note typed into B.
    const typed = buffer.replace(/^\| B \|(.*)\|\s*$/m, (line) => line.replace(/\|\s*$/, ' TODO ask Bob |'))
    expect(typed).not.toBe(buffer)
    save(file, typed)
    const next = await PlanStore.open(file, {now: () => new Date(Date.UTC(2026, 1, 1, 11, 0, 0)), history: true})
    expect(next.startsStale).toBe(true)
    expect(next.state.rows.get('A')!.status).toBe('completed')
    expect(next.state.rows.get('B')!.notes).toContain('TODO ask Bob')
    next.close()
  })

  it('the committed table, whatever version it is: taken as found', async () => {
    const file = copyFixture('basic')
    const first = await PlanStore.open(file, {now: tickingClock(), history: true})
    let state = first.state
    state.rows.get('A')!.status = 'in_progress'
    state = (await first.write(state, {running: new Set(['A'])})).state
    const committed = fs.readFileSync(file, 'utf8')
    state.rows.get('A')!.status = 'completed'
    await first.write(state, {running: new Set()})
    first.close()
    save(file, committed)
    const next = await PlanStore.open(file, {now: tickingClock(Date.UTC(2026, 1, 2)), history: true, committed: Promise.resolve(committed)})
    expect(next.startsStale).toBe(false)
    expect(next.state.rows.get('A')!.status).toBe('in_progress')
    next.close()
  })
})
