import fc from 'fast-check'
import fs from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {parsePlan} from '../src/plan/parse-plan.js'
import {PlanStore} from '../src/store/plan-store.js'
import {tableStateFromPlan, type RowState} from '../src/store/table-state.js'
import {writeMutexPath} from '../src/store/write-mutex.js'
import {copyFixture, tickingClock} from './helpers/store-fixture.js'

afterEach(() => {
  vi.restoreAllMocks()
})

/**
 * Where a person's save lands, against one store write:
 * - idle: before the write starts;
 * - read: after the store read the plan, before its check (while it writes its temp file);
 * - check: after its check that the plan is the file it read, before it links and renames;
 * - link: after it linked the plan, right before its rename (in place only: a rename there is the one
 *   interleaving no call Node has can save, see commitFile);
 * - renamed: right after its rename;
 * - late: an editor that opened the plan (and read it) before the write, and writes into the file it
 *   opened after the write is done, in place (vim's `backupcopy=yes`, `echo >>` held open).
 */
type When = 'idle' | 'read' | 'check' | 'link' | 'renamed' | 'late'
/** rename: a temp file renamed over the plan (sed -i, most editors); inplace: truncate and write the same file. */
type How = 'rename' | 'inplace'
interface Save {
  when: When
  how: How
}
interface Step {
  agent: string
  status: RowState['status']
  saves: Save[]
}

const agents = ['A', 'B', 'C', 'D']
const statuses: Array<RowState['status']> = ['pending', 'in_progress', 'completed', 'failed']
const save: fc.Arbitrary<Save> = fc
  .record({when: fc.constantFrom<When>('idle', 'read', 'check', 'link', 'renamed', 'late'), how: fc.constantFrom<How>('rename', 'inplace')})
  .map((s) => (s.when === 'link' || s.when === 'late' ? {...s, how: 'inplace' as const} : s))
const step: fc.Arbitrary<Step> = fc.record({
  agent: fc.constantFrom(...agents),
  status: fc.constantFrom(...statuses),
  // One save at most per point of a write.
  saves: fc.uniqueArray(save, {maxLength: 4, selector: (s) => s.when})
})

/** The plan as it is now, with `line` added under `## Context`. */
const withLine = (text: string, line: string): string => text.replace('## Context\n', `## Context\n${line}\n`)

describe('saves interleaved with store writes at every step of a write', () => {
  it('lose no saved line, and the table ends with the store’s rows', async () => {
    const real = {renameSync: fs.renameSync, statSync: fs.statSync, linkSync: fs.linkSync, fsyncSync: fs.fsyncSync}
    await fc.assert(
      fc.asyncProperty(fc.array(step, {minLength: 1, maxLength: 6}), async (steps) => {
        const file = copyFixture('basic')
        const store = await PlanStore.open(file, {now: tickingClock()})
        let state = store.state
        const want = new Map(agents.map((agent) => [agent, state.rows.get(agent)!.status]))
        const expected: string[] = []
        const hooks = new Map<When, () => void>()
        const fire = (when: When): void => {
          const hook = hooks.get(when)
          hooks.delete(when)
          hook?.()
        }
        vi.spyOn(fs, 'fsyncSync').mockImplementation((fd) => {
          real.fsyncSync(fd)
          fire('read')
        })
        vi.spyOn(fs, 'statSync').mockImplementation(((at: fs.PathLike, options?: fs.StatSyncOptions) => {
          const stat = real.statSync(at, options as never)
          if (options === undefined && String(at) === file && fs.existsSync(writeMutexPath(file))) fire('check')
          return stat
        }) as typeof fs.statSync)
        vi.spyOn(fs, 'linkSync').mockImplementation((from, to) => {
          real.linkSync(from, to)
          if (String(from) === file) fire('link')
        })
        vi.spyOn(fs, 'renameSync').mockImplementation((from, to) => {
          real.renameSync(from, to)
          if (String(to) === file) fire('renamed')
        })
        try {
          for (const [k, {agent, status, saves}] of steps.entries()) {
            const made = new Set<When>()
            const make = (when: When, how: How): void => {
              const line = `- saved ${k}.${when}.${how}`
              const text = withLine(fs.readFileSync(file, 'utf8'), line)
              if (how === 'inplace') fs.writeFileSync(file, text)
              else {
                fs.writeFileSync(`${file}.swp`, text)
                real.renameSync(`${file}.swp`, file)
              }
              made.add(when)
              expected.push(line)
            }
            for (const {when, how} of saves) if (when !== 'idle' && when !== 'late') hooks.set(when, () => make(when, how))
            if (saves.some((s) => s.when === 'idle')) make('idle', saves.find((s) => s.when === 'idle')!.how)
            // The late editor: opens and reads the plan now, writes into what it opened once the write is done.
            const late = saves.some((s) => s.when === 'late') ? {fd: fs.openSync(file, 'r+'), text: fs.readFileSync(file, 'utf8')} : undefined
            // A new status: a write that changes nothing writes nothing (and reaches none of the points).
            const to = status === want.get(agent) ? statuses[(statuses.indexOf(status) + 1) % statuses.length]! : status
            state.rows.get(agent)!.status = to
            want.set(agent, to)
            state = (await store.write(state, {running: new Set()})).state
            if (late) {
              const line = `- saved ${k}.late.inplace`
              const text = Buffer.from(withLine(late.text, line))
              fs.ftruncateSync(late.fd, 0)
              fs.writeSync(late.fd, text, 0, text.length, 0)
              fs.closeSync(late.fd)
              // A person's rename over the file it held, before the store's rename, left it writing into a
              // file no one reads any more: that save is lost with or without mdplan.
              if (!saves.some((s) => s.how === 'rename' && (s.when === 'read' || s.when === 'check'))) expected.push(line)
            }
            // Every save drawn was made (a point the write never reached would test nothing).
            for (const {when} of saves) if (when !== 'late') expect(made.has(when), `${k} ${when}`).toBe(true)
            hooks.clear()
          }
          // A last write folds in what the late editors wrote.
          await store.write(state, {running: new Set()})
        } finally {
          vi.restoreAllMocks()
          store.close()
        }
        const text = fs.readFileSync(file, 'utf8')
        for (const line of expected) expect(text, line).toContain(`${line}\n`)
        const rows = tableStateFromPlan(parsePlan(text, file)).rows
        for (const agent of agents) expect(rows.get(agent)?.status, agent).toBe(want.get(agent))
        expect(fs.readdirSync(path.dirname(file))).toEqual(['plan.md'])
        fs.rmSync(path.dirname(file), {recursive: true, force: true})
      }),
      {seed: 20261127, numRuns: 100}
    )
  }, 120_000)
})
