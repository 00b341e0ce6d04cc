import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import {describe, expect, it} from 'vitest'
import {DamagedTableError, PlanStore} from '../../../src/store/plan-store.js'
import {copyFixture, tickingClock} from '../../helpers/store-fixture.js'

/** Save `text` over `file` from another process (a `git pull` or an editor): temp file, rename. */
function saveFromOutside(file: string, text: string): void {
  const script = "const fs = require('fs'); const file = process.argv[1]; fs.writeFileSync(file + '.swp', fs.readFileSync(0)); fs.renameSync(file + '.swp', file)"
  execFileSync(process.execPath, ['-e', script, file], {input: text})
}

describe('conflict markers reach the table while a run writes it', () => {
  // With the markers' lines read as plain text, the reader and with a fence in the section, the full parser.
  it.each([
    ['a plain section', ''],
    ['a section with a fence', '\n```\nnot a table\n```\n']
  ])('%s: the write is refused at the marker (DamagedTableError), the file untouched; it goes on once resolved', async (_, extra) => {
    const file = copyFixture('basic')
    const store = await PlanStore.open(file, {now: tickingClock()})
    let state = store.state
    state.rows.get('A')!.status = 'in_progress'
    state = (await store.write(state, {running: new Set(['A'])})).state
    const good = fs.readFileSync(file, 'utf8') + extra
    const conflicted = good.replace(/^\| C \| pending[^\n]*\n/m, '<<<<<<< HEAD\n| C | pending | — | — | |\n=======\n| C | completed | sh-1 | 3s | |\n>>>>>>> theirs\n')
    saveFromOutside(file, conflicted)
    state.rows.get('A')!.status = 'completed'
    const error = await store.write(state, {running: new Set()}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(DamagedTableError)
    const line = conflicted.split('\n').indexOf('<<<<<<< HEAD') + 1
    expect(error).toMatchObject({file, line, column: 1, rule: 'damaged-state-table'})
    expect((error as Error).message).toContain('conflict markers from a merge (`<<<<<<<`): run `mdplan resolve`')
    expect(fs.readFileSync(file, 'utf8')).toBe(conflicted)

    // The person keeps their side's row and deletes the markers: the next write merges as usual.
    saveFromOutside(file, good.replace(/^\| C \| pending[^\n]*$/m, '| C | completed | sh-1 | 3s | |'))
    const written = await store.write(state, {running: new Set()})
    expect([written.state.rows.get('A')!.status, written.state.rows.get('C')!.status]).toEqual(['completed', 'completed'])
    store.close()
  })
})
