import fs from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {mergeOutside} from '../../../src/store/merge-outside.js'
import {PlanStore} from '../../../src/store/plan-store.js'
import {copyFixture, tickingClock} from '../../helpers/store-fixture.js'

afterEach(() => {
  vi.restoreAllMocks()
})

/** The plan's text with `line` and a blank line added under `## Context`, as the saves soak's editor adds its lines. */
const withLine = (text: string, line: string): string => text.replace('## Context\n', `## Context\n${line}\n\n`)

function editorSave(file: string, line: string): void {
  fs.writeFileSync(`${file}.swp`, withLine(fs.readFileSync(file, 'utf8'), line))
  fs.renameSync(`${file}.swp`, file)
}

// Seen in the whole-run saves soak on a loaded machine: a save (A) renamed over the plan after the store's check
// was replaced by its rename and held, to be merged by the next write. Before that write, another save (B) was
// renamed over the plan, made from the file that lacked A. The store merged A first, then B from the file B was
// made from. Two lines added at one place by each side: B's save was as near to the store's last write (which had
// A: B "replaced" A's line with its own) as to the file it was made from, the tie went to the store's write, B was
// taken as it was, and A's line was lost.
describe('a save made from the file that lacked a save the store still held', () => {
  it('keeps both saves’ lines', async () => {
    const file = copyFixture('basic')
    const store = await PlanStore.open(file, {now: tickingClock()})
    let state = store.state
    state.rows.get('A')!.status = 'completed'
    state = (await store.write(state, {running: new Set()})).state
    const real = {linkSync: fs.linkSync, fsyncSync: fs.fsyncSync}
    let step = 0
    // After the store's check (right before it links the plan to hold a save made meanwhile): save A.
    vi.spyOn(fs, 'linkSync').mockImplementation((from, to) => {
      if (step === 0 && String(from) === file) {
        step = 1
        editorSave(file, '- saved A')
      }
      real.linkSync(from, to)
    })
    // The next write of a temp file (the store merging A): save B, from the file as it is now (without A).
    vi.spyOn(fs, 'fsyncSync').mockImplementation((fd) => {
      real.fsyncSync(fd)
      if (step === 1) {
        step = 2
        editorSave(file, '- saved B')
      }
    })
    state.rows.get('B')!.status = 'in_progress'
    await store.write(state, {running: new Set(['B'])})
    vi.restoreAllMocks()
    store.close()
    expect(step).toBe(2)
    const text = fs.readFileSync(file, 'utf8')
    expect(text).toContain('- saved A\n')
    expect(text).toContain('- saved B\n')
    expect(text).toMatch(/^\| A \| completed \|/m)
    expect(text).toMatch(/^\| B \| in_progress \|/m)
    expect(fs.readdirSync(path.dirname(file))).toEqual(['plan.md'])
  })

  it('mergeOutside: on a tie with what mdplan last wrote, the version the save started from is the base', () => {
    const from = {before: '# T\n\nintro\n## Agents\n', after: ''}
    const ours = {before: '# T\n\nintro\n- line A\n\n## Agents\n', after: ''}
    const theirs = {before: '# T\n\nintro\n- line B\n\n## Agents\n', after: ''}
    const merged = mergeOutside(theirs, ours, [ours, from], [from])
    expect(merged?.before).toContain('- line A\n')
    expect(merged?.before).toContain('- line B\n')
  })
})
