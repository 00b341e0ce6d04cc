import {spawn} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it, vi} from 'vitest'
import {atomicWrite} from '../../../src/store/atomic-write.js'
import {cleanTempFiles} from '../../../src/store/clean-temp-files.js'
import {PlanStore} from '../../../src/store/plan-store.js'
import {copyFixture, tickingClock} from '../../helpers/store-fixture.js'

function folder(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'mdplan-atomic-'))
}

describe('atomicWrite', () => {
  it('replaces the file, keeps the mode given, leaves no temp file', () => {
    const dir = folder()
    const file = path.join(dir, 'plan.md')
    fs.writeFileSync(file, 'old')
    fs.chmodSync(file, 0o640)
    expect(atomicWrite(file, Buffer.from('new'), {mode: 0o640})).toBe(true)
    expect(fs.readFileSync(file, 'utf8')).toBe('new')
    expect(fs.statSync(file).mode & 0o777).toBe(0o640)
    expect(fs.readdirSync(dir)).toEqual(['plan.md'])
  })

  it('gives up before the rename when asked, and removes its temp file', () => {
    const dir = folder()
    const file = path.join(dir, 'plan.md')
    fs.writeFileSync(file, 'old')
    expect(atomicWrite(file, Buffer.from('new'), {beforeRename: () => false})).toBe(false)
    expect(fs.readFileSync(file, 'utf8')).toBe('old')
    expect(fs.readdirSync(dir)).toEqual(['plan.md'])
  })

  it('holds the file it replaces by a hard link while `replaced` runs, then removes the link', () => {
    const dir = folder()
    const file = path.join(dir, 'plan.md')
    fs.writeFileSync(file, 'old')
    const ino = fs.statSync(file).ino
    let seen: {text: string; ino: number} | undefined
    expect(
      atomicWrite(file, Buffer.from('new'), {
        replaced: (held) => {
          expect(held).toMatch(/\.plan\.md\.\d+\.\d+\.mdplan-tmp$/)
          seen = {text: fs.readFileSync(held!, 'utf8'), ino: fs.statSync(held!).ino}
        }
      })
    ).toBe(true)
    expect(seen).toEqual({text: 'old', ino})
    expect(fs.readFileSync(file, 'utf8')).toBe('new')
    expect(fs.readdirSync(dir)).toEqual(['plan.md'])
  })

  it('writes all the same where no hard link can be made (`replaced` gets undefined)', () => {
    const dir = folder()
    const file = path.join(dir, 'plan.md')
    fs.writeFileSync(file, 'old')
    vi.spyOn(fs, 'linkSync').mockImplementation(() => {
      throw Object.assign(new Error('EPERM: operation not permitted, link'), {code: 'EPERM'})
    })
    const held: Array<string | undefined> = []
    expect(atomicWrite(file, Buffer.from('new'), {replaced: (link) => held.push(link)})).toBe(true)
    vi.restoreAllMocks()
    expect(held).toEqual([undefined])
    expect(fs.readFileSync(file, 'utf8')).toBe('new')
    expect(fs.readdirSync(dir)).toEqual(['plan.md'])
  })

  it('removes its temp file when a step throws', () => {
    const dir = folder()
    const file = path.join(dir, 'plan.md')
    fs.writeFileSync(file, 'old')
    expect(() =>
      atomicWrite(file, Buffer.from('new'), {
        beforeRename: () => {
          throw new Error('boom')
        }
      })
    ).toThrow('boom')
    expect(fs.readdirSync(dir)).toEqual(['plan.md'])
  })
})

describe('cleanTempFiles', () => {
  it('removes temp files of dead processes and of this one, not of live others', async () => {
    const dir = folder()
    const file = path.join(dir, 'plan.md')
    fs.writeFileSync(file, 'x')
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10000)'])
    const dead = spawn(process.execPath, ['-e', ''])
    await new Promise((resolve) => dead.on('exit', resolve))
    try {
      for (const pid of [process.pid, dead.pid!, child.pid!]) fs.writeFileSync(path.join(dir, `.plan.md.${pid}.1.mdplan-tmp`), 'partial')
      fs.writeFileSync(path.join(dir, '.other.md.1.1.mdplan-tmp'), 'not ours')
      cleanTempFiles(file)
      expect(fs.readdirSync(dir).sort()).toEqual(['.other.md.1.1.mdplan-tmp', `.plan.md.${child.pid}.1.mdplan-tmp`, 'plan.md'].sort())
    } finally {
      child.kill()
    }
  })
})

describe('PlanStore and the file system', () => {
  it('keeps the plan’s mode across writes', async () => {
    const file = copyFixture('basic')
    fs.chmodSync(file, 0o600)
    const store = await PlanStore.open(file, {now: tickingClock()})
    await store.write(store.state, {running: new Set()})
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    store.close()
  })

  it('a file replaced by a rename-saving editor is merged, not overwritten', async () => {
    const file = copyFixture('basic')
    const store = await PlanStore.open(file, {now: tickingClock()})
    const state = store.state
    const edited = fs.readFileSync(file, 'utf8').replace('Why   this change is made.', 'Renamed into place.')
    fs.writeFileSync(`${file}.swp`, edited)
    fs.renameSync(`${file}.swp`, file)
    state.rows.get('A')!.status = 'in_progress'
    await store.write(state, {running: new Set(['A'])})
    const text = fs.readFileSync(file, 'utf8')
    expect(text).toContain('Renamed into place.')
    expect(text).toContain('| A | in_progress | — | — | |')
    store.close()
  })

  it('writes queue: concurrent calls land in order, each on top of the last', async () => {
    const file = copyFixture('basic')
    const store = await PlanStore.open(file, {now: tickingClock()})
    const results = await Promise.all(
      ['A', 'B', 'C'].map((agent) => {
        const state = store.state
        state.rows.get(agent)!.status = 'completed'
        return store.write(state, {running: new Set()})
      })
    )
    // Each call sent the whole table as it saw it before any write: the last one wins.
    expect(results[2]!.state.rows.get('C')!.status).toBe('completed')
    expect(fs.readFileSync(file, 'utf8')).toContain('| C | completed | — | — | |')
    store.close()
  })
})
