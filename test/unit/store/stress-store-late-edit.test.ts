import fs from 'node:fs'
import {mkdtempSync, openSync, readFileSync, writeFileSync, writeSync, ftruncateSync, closeSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {PlanStore} from '../../../src/store/plan-store.js'
import {shellPlan} from '../../helpers/run-cli.js'

afterEach(() => {
  vi.restoreAllMocks()
})

describe('an in-place save that lands in the file mdplan just replaced', () => {
  // Found by `node bench/soak.js --only editors --editor-mode in-place` (200 agents): when a write
  // gives up ("the file kept changing … (50 attempts)"), edits that in-place savers had written into
  // files mdplan had replaced were already taken out of those files (#lateEdits closes them) and only
  // held by the failed write, so they were lost: 9 edits and 4 re-queues in one soak.
  it('survives a write that gives up: the next write still folds it in', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mdplan-late-edit-'))
    const file = join(dir, 'plan.md')
    const text = shellPlan({A: {script: 'true'}, B: {script: 'true'}}).replace('## Agents', '## Context\n\nWhy.\n\n## Agents')
    writeFileSync(file, text)
    // Give up after half a second of lost races (60 s by default), so the test need not wait.
    const store = await PlanStore.open(file, {giveUpAfterMs: 500})
    const state = store.state

    // An editor opens the plan to save in place (truncate, write) just before mdplan's rename...
    const editor = openSync(file, 'r+')
    state.rows.get('A')!.status = 'in_progress'
    await store.write(state, {running: new Set(['A'])})
    // ...and writes its save into the file that rename replaced.
    const saved = text.replace('Why.\n', 'Why.\n- a line the person added\n')
    ftruncateSync(editor, 0)
    writeSync(editor, saved, 0)
    closeSync(editor)

    // The next write loses every race (someone renames over the plan each time) and gives up.
    const statSync = fs.statSync
    const lose = vi.spyOn(fs, 'statSync').mockImplementation(((path: fs.PathLike, options?: fs.StatSyncOptions) => {
      const stat = statSync(path, options as never) as fs.Stats
      return String(path) === file ? Object.assign(Object.create(Object.getPrototypeOf(stat)), stat, {ino: -1}) : stat
    }) as typeof fs.statSync)
    state.rows.get('B')!.status = 'in_progress'
    await expect(store.write(state, {running: new Set(['A', 'B'])})).rejects.toThrow(/kept changing/)
    lose.mockRestore()

    // The file is quiet again: the next write must still carry the person's line.
    state.rows.get('A')!.status = 'completed'
    await store.write(state, {running: new Set(['B'])})
    store.close()
    const after = readFileSync(file, 'utf8')
    expect(after).toContain('- a line the person added')
    expect(after).toMatch(/\| A \| completed \|/)
  })
})

describe('an editor that saves faster than mdplan can merge', () => {
  // Found by `node bench/soak.js --only editors` (200 agents, a save every 100 ms): a write that
  // merges a hand edit re-parses the plan (200-500 ms there), every save lands inside that window,
  // and after 50 lost races (about 20 s) the write gives up and the run stops launching. Losing
  // races is a matter of time, not of count: a burst of saves that ends must not fail the write.
  it('lands once the saves stop, however many races it lost meanwhile', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mdplan-busy-editor-'))
    const file = join(dir, 'plan.md')
    writeFileSync(file, shellPlan({A: {script: 'true'}}))
    const store = await PlanStore.open(file)
    const state = store.state
    const statSync = fs.statSync
    let races = 60
    vi.spyOn(fs, 'statSync').mockImplementation(((path: fs.PathLike, options?: fs.StatSyncOptions) => {
      const stat = statSync(path, options as never) as fs.Stats
      if (String(path) !== file || races === 0) return stat
      races--
      return Object.assign(Object.create(Object.getPrototypeOf(stat)), stat, {ino: -1})
    }) as typeof fs.statSync)
    state.rows.get('A')!.status = 'in_progress'
    await store.write(state, {running: new Set(['A'])})
    store.close()
    expect(races).toBe(0)
    expect(readFileSync(file, 'utf8')).toMatch(/\| A \| in_progress \|/)
  })
})
