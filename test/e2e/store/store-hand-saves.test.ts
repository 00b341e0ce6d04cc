import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {generatePlan, agentId} from '../../../bench/generate-plan.js'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {acquireRunLock} from '../../../src/store/lock.js'
import {DamagedTableError, PlanStore} from '../../../src/store/plan-store.js'
import {tableStateFromPlan} from '../../../src/store/table-state.js'
import {forEachShapes} from '../../helpers/real-plans.js'
import {copyFixture, tickingClock} from '../../helpers/store-fixture.js'

/** Save `text` over `file` from another process, the way editors do: a temp file beside it, renamed over it. */
function saveAsEditor(file: string, text: string): void {
  const script = "const fs = require('fs'); const file = process.argv[1]; fs.writeFileSync(file + '.swp', fs.readFileSync(0)); fs.renameSync(file + '.swp', file)"
  execFileSync(process.execPath, ['-e', script, file], {input: text})
}

function statuses(file: string): Map<string, string> {
  const plan = parsePlan(fs.readFileSync(file, 'utf8'), file)
  return new Map([...tableStateFromPlan(plan).rows].map(([id, row]) => [id, row.status]))
}

function tempPlan(text: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mdplan-hand-saves-')), 'plan.md')
  fs.writeFileSync(file, text)
  return file
}

describe('a stale buffer saved over the plan', () => {
  it('5, 12, 50 and 200 writes old, with a new title: the title is kept, no row goes back', async () => {
    const agents = 280
    const file = tempPlan(generatePlan({agents, withState: true}))
    const store = await PlanStore.open(file, {now: tickingClock()})
    let state = store.state
    let next = 0
    const complete = async (): Promise<void> => {
      state.rows.get(agentId(next++))!.status = 'completed'
      state = (await store.write(state, {running: new Set()})).state
    }
    for (const age of [5, 12, 50, 200]) {
      await complete()
      const buffer = fs.readFileSync(file, 'utf8')
      for (let i = 0; i < age; i++) await complete()
      const title = `# Parallel Plan: renamed after ${age} writes`
      saveAsEditor(file, buffer.replace(/^# .*$/m, title))
      const result = await store.write(state, {running: new Set()})
      expect(result.humanEdits).toEqual([])
      const text = fs.readFileSync(file, 'utf8')
      expect(text).toContain(`${title}\n`)
      const now = statuses(file)
      const reverted = [...Array(next).keys()].map(agentId).filter((id) => now.get(id) !== 'completed')
      expect(reverted).toEqual([])
      expect(result.state.rows.get(agentId(next - 1))!.status).toBe('completed')
    }
    store.close()
  }, 120_000)

  it('a save whose table matches no version mdplan wrote is a person’s edit, merged cell by cell', async () => {
    const file = copyFixture('basic')
    const store = await PlanStore.open(file, {now: tickingClock()})
    let state = store.state
    state.rows.get('A')!.status = 'completed'
    state = (await store.write(state, {running: new Set()})).state
    const buffer = fs.readFileSync(file, 'utf8')
    state.rows.get('B')!.status = 'in_progress'
    state = (await store.write(state, {running: new Set(['B'])})).state
    // An older buffer, with one cell changed by hand: that cell is the edit, the rest is not.
    saveAsEditor(file, buffer.replace('| C | pending | — | — | |', '| C | pending | — | — | look here |'))
    const result = await store.write(state, {running: new Set(['B'])})
    expect(result.humanEdits).toEqual([{agent: 'C', column: 'Notes', from: '', to: 'look here'}])
    const now = statuses(file)
    expect([now.get('A'), now.get('B')]).toEqual(['completed', 'in_progress'])
    store.close()
  })
})

describe('a table damaged by hand', () => {
  it('refuses to write (no second table, file untouched), then merges once the person repairs it', async () => {
    const file = copyFixture('basic')
    const store = await PlanStore.open(file, {now: tickingClock()})
    let state = store.state
    state.rows.get('A')!.status = 'in_progress'
    state = (await store.write(state, {running: new Set(['A'])})).state
    const good = fs.readFileSync(file, 'utf8')
    const damaged = good.replace('|-------|--------|----------|----------|-------|\n', '')
    saveAsEditor(file, damaged)
    state.rows.get('A')!.status = 'completed'
    const error = await store.write(state, {running: new Set()}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(DamagedTableError)
    const line = damaged.split('\n').findIndex((l) => l.startsWith('| A |')) + 1
    expect(error).toMatchObject({file, line, column: 1})
    expect((error as Error).message).toContain(`${file}:${line}:1: `)
    expect((error as Error).message).toContain('`|---|---|`')
    expect(fs.readFileSync(file, 'utf8')).toBe(damaged)
    // A second try meanwhile: still nothing written.
    await expect(store.write(state, {running: new Set()})).rejects.toBeInstanceOf(DamagedTableError)
    expect(fs.readFileSync(file, 'utf8')).toBe(damaged)

    // Repaired, with an edit of its own: the write goes through and merges it.
    saveAsEditor(file, good.replace('| C | pending | — | — | |', '| C | completed | — | — | |'))
    const result = await store.write(state, {running: new Set()})
    expect(result.humanEdits).toEqual([{agent: 'C', column: 'Status', from: 'pending', to: 'completed'}])
    const text = fs.readFileSync(file, 'utf8')
    expect(text.match(/\| Agent \| Status/g)).toHaveLength(1)
    expect(statuses(file).get('A')).toBe('completed')
    store.close()
  })

  it('a deleted section is damage too: nothing appended', async () => {
    const file = copyFixture('basic')
    const store = await PlanStore.open(file, {now: tickingClock()})
    const text = fs.readFileSync(file, 'utf8')
    const cut = text.slice(0, text.indexOf('## Execution State'))
    saveAsEditor(file, cut)
    const state = store.state
    state.rows.get('A')!.status = 'in_progress'
    await expect(store.write(state, {running: new Set(['A'])})).rejects.toThrow(/Execution State` section is gone/)
    // Placed on the file's last line (its end), not on a line after it.
    const lines = cut.endsWith('\n') ? cut.split('\n').length - 1 : cut.split('\n').length
    await expect(store.write(state, {running: new Set(['A'])})).rejects.toThrow(new RegExp(`:${lines}:\\d+: `))
    expect(fs.readFileSync(file, 'utf8')).toBe(cut)
    store.close()
  })
})

describe('a symlinked plan', () => {
  it('is written through the link: the link stays a link, the target records progress, temp files and locks go beside the target', async () => {
    const real = copyFixture('basic')
    const linkDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdplan-link-'))
    const link = path.join(linkDir, 'plan.md')
    fs.symlinkSync(real, link)
    const store = await PlanStore.open(link, {now: tickingClock()})
    expect(store.target).toBe(fs.realpathSync(real))
    const state = store.state
    state.rows.get('A')!.status = 'completed'
    await store.write(state, {running: new Set()})
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true)
    expect(fs.readFileSync(real, 'utf8')).toContain('| A | completed |')
    expect(fs.readdirSync(linkDir)).toEqual(['plan.md'])
    expect(fs.readdirSync(path.dirname(real))).toEqual(['plan.md'])
    store.close()
    const lock = await acquireRunLock(link)
    expect(lock.path).toBe(`${fs.realpathSync(real)}.lock`)
    expect(fs.existsSync(`${real}.lock`)).toBe(true)
    await lock.release()
  })
})

forEachShapes((shapes) => {
  describe('a write that changes nothing', () => {
    it('a run of a completed plan in a real plan\'s shape leaves it byte-identical, mtime included, and report keeps its timing', () => {
      const source = path.join(shapes.dir, shapes.finished)
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdplan-noop-'))
      execFileSync('git', ['init', '-q'], {cwd: dir})
      const file = path.join(dir, 'plan.md')
      fs.copyFileSync(source, file)
      const before = fs.readFileSync(file)
      const mtime = fs.statSync(file).mtimeMs
      const bin = path.resolve('bin/mdplan.js')
      const report = (): string => execFileSync(process.execPath, [bin, 'report', 'plan.md', '--json'], {cwd: dir, encoding: 'utf8'})
      const timing = report()
      execFileSync(process.execPath, [bin, 'run', 'plan.md', '--runner', 'shell'], {cwd: dir, env: {...process.env, NO_COLOR: '1'}})
      execFileSync(process.execPath, [bin, 'run', 'plan.md', '--runner', 'shell'], {cwd: dir, env: {...process.env, NO_COLOR: '1'}})
      expect(fs.readFileSync(file).equals(before)).toBe(true)
      expect(fs.statSync(file).mtimeMs).toBe(mtime)
      expect(report()).toBe(timing)
      expect(JSON.parse(timing).speedup).toBeGreaterThan(0.5)
    }, 60_000)
  })
})
