import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it, vi} from 'vitest'
import {onlyOtherSections, sectionDigests} from '../../../src/plan/section-digests.js'

// Issue 24: a save that touches only sections no launch reads (a line under `## Context`, as `sed -i`
// or an editor makes every second in the saves bench) must not cost the run a parse of the whole plan.

const parses = vi.hoisted(() => ({count: 0}))
vi.mock('../../../src/plan/parse-plan.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/plan/parse-plan.js')>()
  return {
    ...original,
    parsePlan: (...args: Parameters<typeof original.parsePlan>) => {
      parses.count++
      return original.parsePlan(...args)
    }
  }
})

const {PlanStore} = await import('../../../src/store/plan-store.js')
const {watchPlan} = await import('../../../src/executor/watch-plan.js')

const plan = [
  '---',
  'runner: shell',
  '---',
  '',
  '# Parallel Plan: sections',
  '',
  '## Context',
  '',
  'Why we do this.',
  '',
  '## Shared Contract',
  '',
  'Use tabs.',
  '',
  '## Agents',
  '',
  '### A: one',
  '- **depends_on**: []',
  '- **prompt**: |',
  '    echo one',
  '',
  '### B: two',
  '- **depends_on**: [A]',
  '- **prompt**: |',
  '    echo two',
  '',
  '## Execution State',
  '',
  '| Agent | Status | Agent ID | Duration | Notes |',
  '|-------|--------|----------|----------|-------|',
  '| A | pending | — | — | |',
  '| B | pending | — | — | |',
  '',
  'Started: —',
  'Last updated: —',
  ''
].join('\n')

describe('which sections a launch reads', () => {
  const changed = (edit: (text: string) => string): boolean => !onlyOtherSections(sectionDigests(plan), sectionDigests(edit(plan)))
  it('tells a prose edit from one to the agents, the text sent with them, the head or the table', () => {
    expect(changed((t) => t.replace('Why we do this.', 'Why we do this, again.'))).toBe(false)
    expect(changed((t) => t.replace('## Shared Contract', '- a note\n\n## Shared Contract'))).toBe(false)
    expect(changed((t) => t.replace('| A | pending |', '| A | completed |'))).toBe(false)
    expect(changed((t) => t.replace('Use tabs.', 'Use spaces.'))).toBe(true)
    expect(changed((t) => t.replace('echo two', 'echo 2'))).toBe(true)
    expect(changed((t) => t.replace('runner: shell', 'runner: claude'))).toBe(true)
    expect(changed((t) => t.replace('# Parallel Plan: sections', '# Parallel Plan: renamed'))).toBe(true)
    // A fence opened in Context swallows the agents: that is an edit to them.
    expect(changed((t) => t.replace('Why we do this.', '```\nWhy we do this.'))).toBe(true)
    // A two-file plan's prompts line counts wherever it is.
    expect(changed((t) => t.replace('Why we do this.', '**Prompts:** prompts.md'))).toBe(true)
  })
})

describe('a run watching its plan', () => {
  it('merges a prose save without parsing the plan, and still sees an edit to an agent', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdplan-watch-'))
    const file = path.join(dir, 'plan.md')
    fs.writeFileSync(file, plan)
    const store = await PlanStore.open(file)
    const state = {table: store.state, stopping: false, attempts: new Map()} as never
    const events: unknown[] = []
    const watch = watchPlan({store, file, cwd: dir, plan: store.plan, pollMs: 60_000, dispatch: (event) => events.push(event), state: () => state})
    try {
      const save = async (edit: (text: string) => string): Promise<unknown[]> => {
        fs.writeFileSync(`${file}.swp`, edit(fs.readFileSync(file, 'utf8')))
        fs.renameSync(`${file}.swp`, file)
        watch.writing()
        const result = await store.write(store.state, {running: new Set()})
        expect(result.merged).toBe(true)
        watch.wrote(result.merged)
        return watch.refresh(state)
      }
      const before = parses.count
      expect(await save((t) => t.replace('Why we do this.', 'Why we do this, saved by sed.'))).toEqual([])
      expect(await save((t) => t.replace('## Shared Contract', '- an editor line\n\n## Shared Contract'))).toEqual([])
      expect(parses.count).toBe(before)
      expect(fs.readFileSync(file, 'utf8')).toContain('- an editor line\n')
      const edited = await save((t) => t.replace('echo two', 'echo 2'))
      expect(edited).toContainEqual(expect.objectContaining({type: 'plan-changed'}))
      expect(parses.count).toBeGreaterThan(before)
    } finally {
      watch.stop()
      store.close()
      fs.rmSync(dir, {recursive: true, force: true})
    }
  })
})
