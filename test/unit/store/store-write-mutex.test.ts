import {spawn} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it, vi} from 'vitest'
import {copyFixture} from '../../helpers/store-fixture.js'
import {transpileSources} from '../../helpers/store-transpile.js'

// The waits of the mutex, counted (and still made): a takeover "at once" is one with no wait, not one within a time.
const sleeps = vi.hoisted(() => ({count: 0, during: undefined as (() => void) | undefined}))
vi.mock('../../../src/util/sleep-sync.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/util/sleep-sync.js')>()
  return {
    sleepSync: (ms: number) => {
      sleeps.count++
      sleeps.during?.()
      original.sleepSync(ms)
    }
  }
})

const {PlanStore} = await import('../../../src/store/plan-store.js')
const {withWriteMutex, writeMutexPath} = await import('../../../src/store/write-mutex.js')

/**
 * Another process that holds the plan's write mutex for `ms`, the way a careful tool would.
 * `released` is the plan's text the holder read just before it let go: what it saw, not a clock read in two processes.
 */
async function holdMutex(file: string, ms: number): Promise<{released: Promise<string>}> {
  const mutex = JSON.stringify(writeMutexPath(file))
  const script = `const fs = require('node:fs'); fs.mkdirSync(${mutex}); console.log('held'); setTimeout(() => { const seen = fs.readFileSync(${JSON.stringify(file)}, 'utf8'); fs.rmdirSync(${mutex}); process.stdout.write(JSON.stringify(seen)) }, ${ms})`
  const child = spawn(process.execPath, ['-e', script], {stdio: ['ignore', 'pipe', 'inherit']})
  let output = ''
  child.stdout!.setEncoding('utf8')
  await new Promise<void>((resolve) =>
    child.stdout!.on('data', (chunk: string) => {
      output += chunk
      if (output.startsWith('held\n')) resolve()
    })
  )
  return {released: new Promise((resolve) => child.on('exit', () => resolve(JSON.parse(output.slice('held\n'.length)) as string)))}
}

describe("the plan's write mutex", () => {
  it('a write waits while another writer holds it, then goes through', async () => {
    const file = copyFixture('ten-agents')
    const store = await PlanStore.open(file)
    const state = store.state
    state.rows.get('A')!.status = 'in_progress'
    const before = fs.readFileSync(file, 'utf8')
    const holder = await holdMutex(file, 300)
    sleeps.count = 0
    await store.write(state, {running: new Set(['A'])})
    expect(sleeps.count).toBeGreaterThan(0)
    expect(await holder.released).toBe(before)
    const after = fs.readFileSync(file, 'utf8')
    expect(after).not.toBe(before)
    expect(after).toMatch(/\| A \| in_progress \|/)
    expect(fs.existsSync(writeMutexPath(file))).toBe(false)
  })

  it('takes over a mutex left by a writer that died holding it', async () => {
    const file = copyFixture('ten-agents')
    const store = await PlanStore.open(file)
    fs.mkdirSync(writeMutexPath(file))
    const old = new Date(Date.now() - 5000)
    fs.utimesSync(writeMutexPath(file), old, old)
    const state = store.state
    state.rows.get('B')!.status = 'completed'
    await store.write(state, {running: new Set()})
    expect(fs.readFileSync(file, 'utf8')).toMatch(/\| B \| completed \|/)
    expect(fs.existsSync(writeMutexPath(file))).toBe(false)
  })

  it('takes such a mutex over at once: not one wait for it', () => {
    // Counted, not timed: a bound of 1 s on the whole write (its fsync included) was a race on a loaded machine.
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mdplan-mutex-')), 'plan.md')
    fs.mkdirSync(writeMutexPath(file))
    const old = new Date(Date.now() - 5000)
    fs.utimesSync(writeMutexPath(file), old, old)
    sleeps.count = 0
    expect(withWriteMutex(file, () => 'written')).toBe('written')
    expect(sleeps.count).toBe(0)
    expect(fs.existsSync(writeMutexPath(file))).toBe(false)
  })

  it('waits for a live holder, one wait at a time (so the count above counts)', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mdplan-mutex-')), 'plan.md')
    fs.mkdirSync(writeMutexPath(file))
    // Never stale (its time is ahead), and let go by its holder during the first wait.
    const ahead = new Date(Date.now() + 60_000)
    fs.utimesSync(writeMutexPath(file), ahead, ahead)
    sleeps.count = 0
    sleeps.during = () => fs.rmdirSync(writeMutexPath(file))
    try {
      expect(withWriteMutex(file, () => 'written')).toBe('written')
    } finally {
      sleeps.during = undefined
    }
    expect(sleeps.count).toBe(1)
  })

  it('is released when the critical step throws, and never held by two at once', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mdplan-mutex-')), 'plan.md')
    expect(() =>
      withWriteMutex(file, () => {
        throw new Error('rename failed')
      })
    ).toThrow('rename failed')
    expect(fs.existsSync(writeMutexPath(file))).toBe(false)
    withWriteMutex(file, () => {
      // Held: a second mkdir (another writer's attempt) fails.
      expect(() => fs.mkdirSync(writeMutexPath(file))).toThrow(/EEXIST/)
    })
    expect(fs.existsSync(writeMutexPath(file))).toBe(false)
  })
})

describe('releasing the write mutex', () => {
  /** A process that makes `writes` writes of the plan, then exits at once (`process.exit`, pending I/O abandoned). */
  function writeAndExit(root: string, file: string, writes: number): Promise<number> {
    const script = `const {PlanStore} = await import(${JSON.stringify(`${root}/src/store/plan-store.js`)})
const store = await PlanStore.open(${JSON.stringify(file)})
let state = store.state
const ids = [...state.rows.keys()]
for (let n = 0; n < ${writes}; n++) {
  const id = ids[n % ids.length]
  state.rows.set(id, {...state.rows.get(id), status: n % 2 ? 'completed' : 'in_progress', notes: 'write ' + n})
  state = (await store.write(state, {running: new Set()})).state
}
process.exit(0)`
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {stdio: ['ignore', 'inherit', 'inherit']})
    return new Promise((resolve) => child.on('exit', (code) => resolve(code ?? -1)))
  }

  it('leaves nothing beside the plan, in a process that exits right after its last write', async () => {
    const root = transpileSources()
    const file = copyFixture('ten-agents')
    expect(await writeAndExit(root, file, 30)).toBe(0)
    expect(fs.readdirSync(path.dirname(file))).toEqual(['plan.md'])
    expect(fs.readFileSync(file, 'utf8')).toMatch(/write 29/)
  })

  it('never removes the mutex of a writer that took it over meanwhile', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mdplan-mutex-')), 'plan.md')
    withWriteMutex(file, () => {
      // Held past a second (a stopped process): another writer took it over as stale, the way a tool does.
      fs.rmSync(writeMutexPath(file), {recursive: true, force: true})
      fs.mkdirSync(writeMutexPath(file))
    })
    expect(fs.statSync(writeMutexPath(file)).isDirectory()).toBe(true)
  })

  it('frees the mutex path when the critical step ends, so another writer can take it at once', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mdplan-mutex-')), 'plan.md')
    withWriteMutex(file, () => undefined)
    // Taken again at once, as a directory (a tool's way): the path is free.
    fs.mkdirSync(writeMutexPath(file))
    fs.rmdirSync(writeMutexPath(file))
  })
})
