import {spawn} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {PlanStore} from '../src/store/plan-store.js'
import {withWriteMutex, writeMutexPath} from '../src/store/write-mutex.js'
import {copyFixture} from './helpers/store-fixture.js'

/** Another process that holds the plan's write mutex for `ms`, the way a careful tool would. */
async function holdMutex(file: string, ms: number): Promise<{released: Promise<number>}> {
  const script = `const fs = require('node:fs'); fs.mkdirSync(${JSON.stringify(writeMutexPath(file))}); console.log('held'); setTimeout(() => { fs.rmdirSync(${JSON.stringify(writeMutexPath(file))}); console.log(Date.now()) }, ${ms})`
  const child = spawn(process.execPath, ['-e', script], {stdio: ['ignore', 'pipe', 'inherit']})
  let output = ''
  child.stdout!.setEncoding('utf8')
  await new Promise<void>((resolve) =>
    child.stdout!.on('data', (chunk: string) => {
      output += chunk
      if (output.startsWith('held\n')) resolve()
    })
  )
  return {released: new Promise((resolve) => child.on('exit', () => resolve(Number(output.split('\n')[1]))))}
}

describe("the plan's write mutex", () => {
  it('a write waits while another writer holds it, then goes through', async () => {
    const file = copyFixture('ten-agents')
    const store = await PlanStore.open(file)
    const state = store.state
    state.rows.get('A')!.status = 'in_progress'
    const before = fs.readFileSync(file, 'utf8')
    const holder = await holdMutex(file, 300)
    await store.write(state, {running: new Set(['A'])})
    const wroteAt = Date.now()
    const releasedAt = await holder.released
    expect(wroteAt).toBeGreaterThanOrEqual(releasedAt)
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
    const started = Date.now()
    await store.write(state, {running: new Set()})
    expect(Date.now() - started).toBeLessThan(1000)
    expect(fs.readFileSync(file, 'utf8')).toMatch(/\| B \| completed \|/)
    expect(fs.existsSync(writeMutexPath(file))).toBe(false)
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
