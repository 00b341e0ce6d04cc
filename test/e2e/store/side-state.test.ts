import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {importStateJson} from '../../../src/store/import-state-json.js'
import {readSideState} from '../../../src/store/read-side-state.js'
import {runCli} from '../../helpers/run-cli.js'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {forEachShapes} from '../../helpers/real-plans.js'

const fixture = fileURLToPath(new URL('../../../fixtures/side-state/', import.meta.url))
const planText = readFileSync(join(fixture, 'plan.md'), 'utf8')
const sideText = readFileSync(join(fixture, '.parallel-plan-state.json'), 'utf8')

describe('importStateJson on the real executor\'s shape', () => {
  it('maps what has a place and names what it leaves out', () => {
    const left: string[] = []
    const state = importStateJson(JSON.parse(sideText), parsePlan(planText, 'plan.md'), (key) => left.push(key))
    expect(left).toEqual(['startTimestamp', 'endTimestamp'])
    expect(state.rows.get('A')).toMatchObject({status: 'completed', agentId: 'a51f0c2', duration: '', notes: '2/2 TDD steps. Discoveries: the loader reads schema.txt lazily'})
    expect(state.rows.get('B')).toMatchObject({status: 'completed', agentId: 'a7e93b1', duration: '4m 10s'})
    expect(state.rows.get('C')).toMatchObject({status: 'pending', agentId: '', notes: 'blocked by: A, B'})
    expect(state.meta).toMatchObject({started: '2026-03-02 09:12:40', lastUpdated: '2026-03-02 09:31:05', build: 'not yet run'})
  })
})

forEachShapes((shapes) => {
  const sideDir = join(shapes.dir, shapes.sideDir)
  const sidePlan = join(sideDir, shapes.sidePlan)

  describe('the side-file an executor committed beside a plan', () => {
    it('is imported into the table of the plan not started', () => {
      const plan = parsePlan(readFileSync(join(shapes.dir, shapes.pending), 'utf8'), 'plan.md')
      // Unasked, a table with no progress is never overwritten by the side-file's.
      const asked = readSideState(plan, sidePlan)
      expect(asked.imported).toBeUndefined()
      expect(asked.diagnostics.map((d) => `${d.severity} ${d.rule}: ${d.reason}`)).toEqual([
        'error state-json-unconfirmed: has progress the table does not (6 completed), so it was not imported: run with --import-state to take it into the table, or with --ignore-state-file (or delete the file) to run from the table as it is'
      ])
      expect(readSideState(plan, sidePlan, 'ignore')).toEqual({state: asked.state, diagnostics: []})
      const side = readSideState(plan, sidePlan, 'import')
      expect(side.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
      expect(side.diagnostics.find((d) => d.severity === 'warning')?.reason).toBe('left out, no place for it in the table: `startTimestamp`, `endTimestamp`')
      expect([...side.state.rows.values()].map((row) => row.status)).toEqual(Array(6).fill('completed'))
      expect(side.state.rows.get('A')?.agentId).toBe(shapes.facts.sideAgentIdA)
    })

    it('leaves a table with progress of its own alone', () => {
      const plan = parsePlan(readFileSync(sidePlan, 'utf8'), 'plan.md')
      const side = readSideState(plan, sidePlan)
      expect(side.imported).toBeUndefined()
      expect(side.diagnostics).toEqual([])
    })
  })
})

describe('validate, run --dry-run and run agree on the side-file', () => {
  it('a table reset to pending is not overwritten unasked: all three say how to keep or drop the side-file', async () => {
    await isolateGitConfig()
    const repo = await tempRepo({'plan.md': planText, '.parallel-plan-state.json': sideText})
    const line =
      '.parallel-plan-state.json: has progress the table does not (2 completed), so it was not imported: run with --import-state to take it into the table, or with --ignore-state-file (or delete the file) to run from the table as it is [state-json-unconfirmed]'
    const validate = await runCli(['validate', 'plan.md'], {cwd: repo.root})
    expect(validate.exitCode, validate.all).toBe(0)
    expect(validate.stdout).toContain(line.replace(': has progress', ': warning: has progress'))
    for (const args of [['run', '--dry-run', 'plan.md'], ['run', 'plan.md']]) {
      const refused = await runCli(args, {cwd: repo.root})
      expect(refused.exitCode, refused.all).toBe(2)
      expect(refused.stderr).toContain(line)
      expect(refused.stderr).toContain('Choose with `--import-state` or `--ignore-state-file`.')
      expect(refused.stderr).not.toContain('mdplan validate')
    }
    expect(existsSync(join(repo.root, 'launches.txt'))).toBe(false)
    expect(await repo.read('plan.md')).toBe(planText)

    // --ignore-state-file: the table as it is, every agent runs.
    const fresh = await tempRepo({'plan.md': planText, '.parallel-plan-state.json': sideText})
    const dryFresh = await runCli(['run', '--dry-run', '--ignore-state-file', 'plan.md'], {cwd: fresh.root})
    expect(dryFresh.stdout).toContain('3 of 3 agents would launch')
    const ran = await runCli(['run', '--ignore-state-file', 'plan.md'], {cwd: fresh.root})
    expect(ran.exitCode, ran.all).toBe(0)
    expect(readFileSync(join(fresh.root, 'launches.txt'), 'utf8').split('\n').filter(Boolean).sort()).toEqual(['A', 'B', 'C'])
    await fresh.cleanup()
    await repo.cleanup()
  })

  it('with --import-state all three take it: A and B are done, only C launches', async () => {
    await isolateGitConfig()
    const repo = await tempRepo({'plan.md': planText, '.parallel-plan-state.json': sideText})
    const dry = await runCli(['run', '--dry-run', '--import-state', 'plan.md'], {cwd: repo.root})
    expect(dry.exitCode, dry.all).toBe(0)
    expect(dry.all).toContain('1 of 3 agents would launch')
    expect(dry.all).toContain('Already completed (skipped): A, B')
    expect(dry.all).toContain('(left out, no place for it in the table: `startTimestamp`, `endTimestamp`)')
    const both = await runCli(['run', '--import-state', '--ignore-state-file', 'plan.md'], {cwd: repo.root})
    expect(both.exitCode).toBe(2)
    const run = await runCli(['run', '--import-state', 'plan.md'], {cwd: repo.root})
    expect(run.exitCode, run.all).toBe(0)
    expect(readFileSync(join(repo.root, 'launches.txt'), 'utf8')).toBe('C\n')
    expect(await repo.read('plan.md')).toMatch(/\| A \| completed \| a51f0c2 \|/)
    await repo.cleanup()
  })

  it('all three refuse a side-file that cannot be imported, and nothing launches', async () => {
    await isolateGitConfig()
    const broken = sideText.replace('"status": "pending"', '"status": "half-done"')
    const repo = await tempRepo({'plan.md': planText, '.parallel-plan-state.json': broken})
    const validate = await runCli(['validate', 'plan.md'], {cwd: repo.root})
    expect(validate.exitCode).toBe(2)
    expect(validate.all).toContain('.parallel-plan-state.json: cannot import the side-file: agents.C.status: unknown status `half-done`')
    const dry = await runCli(['run', '--dry-run', 'plan.md'], {cwd: repo.root})
    expect(dry.exitCode).not.toBe(0)
    expect(dry.all).toContain('unknown status `half-done`')
    const run = await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(run.exitCode).not.toBe(0)
    expect(run.all).toContain('unknown status `half-done`')
    expect(existsSync(join(repo.root, 'launches.txt'))).toBe(false)
    expect(await repo.read('plan.md')).toBe(planText)
    await repo.cleanup()
  })
})
