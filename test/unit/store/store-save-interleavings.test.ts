import fc from 'fast-check'
import fs from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {PlanStore} from '../../../src/store/plan-store.js'
import {tableStateFromPlan, type RowState} from '../../../src/store/table-state.js'
import {copyFixture, tickingClock} from '../../helpers/store-fixture.js'
import {sized} from '../../helpers/quick.js'

afterEach(() => {
  vi.restoreAllMocks()
})

/**
 * Where a person's save lands, against one store write:
 * - idle: before the write starts;
 * - read: after the store read the plan, before its check (while it writes its temp file);
 * - check: after its check that the plan is the file it read passed, before it links and renames;
 * - link: after it linked the plan, right before its rename (in place only: a rename there is the one
 *   interleaving no call Node has can save, see commitFile);
 * - renamed: right after its rename;
 * - late: an editor that opened the plan (and read it) before the write, and writes into the file it
 *   opened after the write is done, in place (vim's `backupcopy=yes`, a shell's `exec 3>>plan.md`).
 */
type When = 'idle' | 'read' | 'check' | 'link' | 'renamed' | 'late'
/**
 * rename: a temp file renamed over the plan (sed -i, most editors); inplace: truncate and write the same file;
 * stale: an editor's buffer loaded before the run's first writes (more than the store keeps whole), a line
 * added, saved by a rename: its table is one the store wrote long ago (nothing in it is an edit).
 */
type How = 'rename' | 'inplace' | 'stale'
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
  .record({when: fc.constantFrom<When>('idle', 'read', 'check', 'link', 'renamed', 'late'), how: fc.constantFrom<How>('rename', 'inplace', 'stale')})
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
    const real = {renameSync: fs.renameSync, linkSync: fs.linkSync, fsyncSync: fs.fsyncSync}
    await fc.assert(
      fc.asyncProperty(fc.array(step, {minLength: 1, maxLength: 6}), async (steps) => {
        const file = copyFixture('basic')
        const store = await PlanStore.open(file, {now: tickingClock()})
        let state = store.state
        // The stale editor's buffer: the plan as it was before the store's first writes (more of them than
        // the store keeps whole versions of: 12), with a line of its own.
        const buffer = fs.readFileSync(file, 'utf8')
        for (let k = 0; k < 13; k++) {
          state.rows.get('C')!.notes = `note ${k}`
          state = (await store.write(state, {running: new Set()})).state
        }
        const want = new Map(agents.map((agent) => [agent, state.rows.get(agent)!.status]))
        let expected: string[] = []
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
        // The store links the plan only once its check passed: right before that link is right after that check.
        vi.spyOn(fs, 'linkSync').mockImplementation((from, to) => {
          if (String(from) === file) fire('check')
          real.linkSync(from, to)
          if (String(from) === file) fire('link')
        })
        vi.spyOn(fs, 'renameSync').mockImplementation((from, to) => {
          real.renameSync(from, to)
          if (String(to) === file) fire('renamed')
        })
        // Saved lines on disk that no write of the store has read yet: a stale buffer renamed over them replaces
        // them (one person's save over another's, with or without mdplan).
        let unread: string[] = []
        try {
          for (const [k, {agent, status, saves}] of steps.entries()) {
            const made = new Set<When>()
            const make = (when: When, how: How): void => {
              const line = `- saved ${k}.${when}.${how}`
              if (how === 'stale' && (when === 'idle' || when === 'read')) {
                expected = expected.filter((saved) => !unread.includes(saved))
                unread = []
              }
              // Right after the store's first rename, a save its rename replaced (`check`) is not read yet either.
              if (how === 'stale' && when === 'renamed') expected = expected.filter((saved) => !saved.startsWith(`- saved ${k}.check.`))
              if (when === 'idle' || when === 'renamed') unread.push(line)
              const text = withLine(how === 'stale' ? buffer : fs.readFileSync(file, 'utf8'), line)
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
            // What the write read is in it; a save made right after its rename is not read yet.
            unread = unread.filter((line) => line.startsWith(`- saved ${k}.renamed.`))
            if (late) {
              const line = `- saved ${k}.late.inplace`
              const text = Buffer.from(withLine(late.text, line))
              fs.ftruncateSync(late.fd, 0)
              fs.writeSync(late.fd, text, 0, text.length, 0)
              fs.closeSync(late.fd)
              // A person's rename over the file it held, before the store's rename, left it writing into a
              // file no one reads any more: that save is lost with or without mdplan.
              if (!saves.some((s) => s.how !== 'inplace' && (s.when === 'read' || s.when === 'check'))) expected.push(line)
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
      {seed: 20261127, numRuns: sized(60, 15)}
    )
  }, 240_000)
})
