import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {DamagedTableError, PlanStore} from '../../../src/store/plan-store.js'
import {writeMutexPath} from '../../../src/store/write-mutex.js'
import {copyFixture, tickingClock} from '../../helpers/store-fixture.js'

afterEach(() => {
  vi.restoreAllMocks()
})

/**
 * Run `save(file)` once, in the instant between the store's last check that the plan is the file it read
 * (its `statSync` of the plan, made while it holds the write mutex) and its rename over the plan.
 */
function saveAfterCheck(file: string, save: (file: string) => void): {made: () => boolean} {
  const statSync = fs.statSync
  let made = false
  vi.spyOn(fs, 'statSync').mockImplementation(((at: fs.PathLike, options?: fs.StatSyncOptions) => {
    const stat = statSync(at, options as never)
    if (!made && options === undefined && String(at) === file && fs.existsSync(writeMutexPath(file))) {
      made = true
      save(file)
    }
    return stat
  }) as typeof fs.statSync)
  return {made: () => made}
}

/** The plan as it is now, with `line` added under `## Context`. */
const withLine = (file: string, line: string): string => fs.readFileSync(file, 'utf8').replace('## Context\n', `## Context\n${line}\n`)

async function writeWithSaveInWindow(save: (file: string) => void): Promise<string> {
  const file = copyFixture('basic')
  const store = await PlanStore.open(file, {now: tickingClock()})
  let state = store.state
  state.rows.get('A')!.status = 'completed'
  state = (await store.write(state, {running: new Set()})).state
  const window = saveAfterCheck(file, save)
  state.rows.get('B')!.status = 'in_progress'
  await store.write(state, {running: new Set(['B'])})
  vi.restoreAllMocks()
  expect(window.made()).toBe(true)
  store.close()
  const text = fs.readFileSync(file, 'utf8')
  expect(text).toMatch(/^\| A \| completed \|/m)
  expect(text).toMatch(/^\| B \| in_progress \|/m)
  // The link that held the replaced file is gone, as is every temp file.
  expect(fs.readdirSync(path.dirname(file))).toEqual(['plan.md'])
  return text
}

// The store checks that the plan is still the file it read, then renames its write over it. A save that
// lands between the two used to be replaced by that rename, unread: one of the whole-run saves soak's
// lines went missing that way. A hard link to the plan, taken after the check, holds such a save.
describe('a save renamed over the plan between the store’s check and its rename', () => {
  it('an editor’s temp file + rename is merged, not overwritten', async () => {
    const text = await writeWithSaveInWindow((file) => {
      fs.writeFileSync(`${file}.swp`, withLine(file, '- saved by the editor'))
      fs.renameSync(`${file}.swp`, file)
    })
    expect(text).toContain('- saved by the editor\n')
  })

  it('sed -i is merged, not overwritten', async () => {
    const text = await writeWithSaveInWindow((file) => {
      expect(spawnSync('sed', ['-i', 's/^Why   this change is made\\./& Saved by sed./', file]).status).toBe(0)
    })
    expect(text).toContain('Why   this change is made. Saved by sed.')
  })

  it('a rename, then a write in place into the renamed file before the store’s rename: both are kept', async () => {
    const text = await writeWithSaveInWindow((file) => {
      fs.writeFileSync(`${file}.swp`, withLine(file, '- saved by the editor'))
      fs.renameSync(`${file}.swp`, file)
      fs.appendFileSync(file, '\n- appended in place\n')
    })
    expect(text).toContain('- saved by the editor\n')
    expect(text).toContain('- appended in place\n')
  })

  it('a write in place, in that instant, into the file the store read is merged too', async () => {
    const text = await writeWithSaveInWindow((file) => fs.writeFileSync(file, withLine(file, '- written in place')))
    expect(text).toContain('- written in place\n')
  })

  it('an editor’s buffer loaded many writes ago, with a line added: the line is kept, no row goes back', async () => {
    const file = copyFixture('basic')
    const store = await PlanStore.open(file, {now: tickingClock()})
    const buffer = fs.readFileSync(file, 'utf8')
    let state = store.state
    // More writes than the store keeps whole versions of (12): the buffer's table is known by its hash alone.
    for (let k = 0; k < 16; k++) {
      const row = state.rows.get(['A', 'B', 'C', 'D'][k % 4]!)!
      row.status = k < 8 ? 'in_progress' : 'completed'
      row.notes = `write ${k}`
      state = (await store.write(state, {running: new Set()})).state
    }
    saveAfterCheck(file, (file) => {
      fs.writeFileSync(`${file}.swp`, buffer.replace('## Context\n', '## Context\n- saved from an old buffer\n'))
      fs.renameSync(`${file}.swp`, file)
    })
    state.rows.get('A')!.duration = '5s'
    const result = await store.write(state, {running: new Set()})
    vi.restoreAllMocks()
    store.close()
    expect(result.humanEdits).toEqual([])
    const text = fs.readFileSync(file, 'utf8')
    expect(text).toContain('- saved from an old buffer\n')
    for (const agent of ['A', 'B', 'C', 'D']) expect(text).toMatch(new RegExp(`^\\| ${agent} \\| completed \\| — \\| ${agent === 'A' ? '5s' : '—'} \\| write 1[2-5] \\|$`, 'm'))
    expect(fs.readdirSync(path.dirname(file))).toEqual(['plan.md'])
  })

  it('one whose table is damaged is put back in place of the write, as if it had come after: the person sees what to repair', async () => {
    const file = copyFixture('basic')
    const store = await PlanStore.open(file, {now: tickingClock()})
    let state = store.state
    state.rows.get('A')!.status = 'completed'
    state = (await store.write(state, {running: new Set()})).state
    let damaged = ''
    saveAfterCheck(file, (file) => {
      damaged = withLine(file, '- saved with a damaged table').replace('|-------|--------|----------|----------|-------|\n', '')
      fs.writeFileSync(`${file}.swp`, damaged)
      fs.renameSync(`${file}.swp`, file)
    })
    state.rows.get('B')!.status = 'in_progress'
    await expect(store.write(state, {running: new Set(['B'])})).rejects.toBeInstanceOf(DamagedTableError)
    vi.restoreAllMocks()
    expect(fs.readFileSync(file, 'utf8')).toBe(damaged)
    await expect(store.write(state, {running: new Set(['B'])})).rejects.toBeInstanceOf(DamagedTableError)
    // Repaired: the next write merges it.
    fs.writeFileSync(file, withLine(file, '- repaired').replace('| Agent | Status | Agent ID | Duration | Notes |\n', '| Agent | Status | Agent ID | Duration | Notes |\n|-------|--------|----------|----------|-------|\n'))
    await store.write(state, {running: new Set(['B'])})
    store.close()
    const text = fs.readFileSync(file, 'utf8')
    for (const line of ['- saved with a damaged table\n', '- repaired\n']) expect(text).toContain(line)
    expect(text).toMatch(/^\| A \| completed \|/m)
    expect(text).toMatch(/^\| B \| in_progress \|/m)
    expect(fs.readdirSync(path.dirname(file))).toEqual(['plan.md'])
  })
})
