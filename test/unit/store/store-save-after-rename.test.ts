import fs from 'node:fs'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {PlanStore} from '../../../src/store/plan-store.js'
import {copyFixture, tickingClock} from '../../helpers/store-fixture.js'

afterEach(() => {
  vi.restoreAllMocks()
})

/**
 * Open the `basic` fixture, record A completed, and have `save` write the plan's new text (its title in
 * capitals: the same length) right after the store renamed that write into place; then record B in
 * progress. Returns the file's text in the end and the text `save` wrote.
 */
async function saveRightAfterRename(save: (file: string, text: string) => void): Promise<{text: string; saved: string}> {
  const file = copyFixture('basic')
  const store = await PlanStore.open(file, {now: tickingClock()})
  let state = store.state
  const rename = fs.renameSync
  let saved = ''
  vi.spyOn(fs, 'renameSync').mockImplementation((from, to) => {
    rename(from, to)
    if (saved || String(to) !== file) return
    const text = fs.readFileSync(file, 'utf8')
    saved = text.replace(/^# (.*)$/m, (_, title: string) => `# ${title.toUpperCase()}`)
    expect(saved).not.toBe(text)
    save(file, saved)
  })
  state.rows.get('A')!.status = 'completed'
  state = (await store.write(state, {running: new Set()})).state
  vi.restoreAllMocks()
  expect(saved).not.toBe('')
  state.rows.get('B')!.status = 'in_progress'
  await store.write(state, {running: new Set(['B'])})
  store.close()
  return {text: fs.readFileSync(file, 'utf8'), saved}
}

const title = (text: string): string => text.match(/^# .*$/m)![0]

// The store skips reading a plan whose inode, size and times are those it saw right after its own
// rename. A person's save that lands between that rename and that look must not be taken for ours:
// the next write would skip reading it and write over it.
describe('a save that lands right after the store renamed its write into place', () => {
  it('an editor’s temp + rename of the same length is read and kept by the next write', async () => {
    const {text, saved} = await saveRightAfterRename((file, saved) => {
      fs.writeFileSync(`${file}.swp`, saved)
      fs.renameSync(`${file}.swp`, file)
    })
    expect(title(text)).toBe(title(saved))
    expect(text).toMatch(/\| A \| completed /)
    expect(text).toMatch(/\| B \| in_progress /)
  })

  it('an in-place write of the same length is read and kept by the next write', async () => {
    const {text, saved} = await saveRightAfterRename((file, saved) => {
      // In place (same inode), a moment later, as an editor that writes through its open file does.
      const fd = fs.openSync(file, 'r+')
      const later = new Date(Date.now() + 5000)
      fs.writeSync(fd, saved, 0)
      fs.futimesSync(fd, later, later)
      fs.closeSync(fd)
    })
    expect(title(text)).toBe(title(saved))
    expect(text).toMatch(/\| B \| in_progress /)
  })
})
