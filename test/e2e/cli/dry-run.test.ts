import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {mkdtemp, readFile, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {runCli, shellPlan} from '../../helpers/run-cli.js'
import {forEachShapes} from '../../helpers/real-plans.js'

const fixtures = fileURLToPath(new URL('../../../fixtures/dry-run/', import.meta.url))

/** Compare with a golden file beside the fixtures; `UPDATE=1` rewrites it for review in the diff. */
function golden(name: string, actual: string): void {
  const file = join(fixtures, name)
  if (process.env.UPDATE || !existsSync(file)) writeFileSync(file, actual)
  expect(actual).toBe(readFileSync(file, 'utf8'))
}

forEachShapes((shapes) => {
  describe('run --dry-run of a plan in a real plan\'s shape', () => {
    it('prints a summary by default: waves, order, runners, first prompt lines, makespan unknown', async () => {
      const dry = await runCli(['run', '--dry-run', shapes.pending], {cwd: shapes.dir})
      expect(dry.exitCode, dry.stderr).toBe(0)
      golden(shapes.facts.pendingGolden, dry.stdout)
      // A summary, not the prompts: the plan's prompts run to hundreds of lines.
      expect(dry.stdout.split('\n').length).toBeLessThan(30)
      expect(dry.stdout).not.toContain('## Shared Contract')
    })

    it('prints every full prompt with --prompts', async () => {
      const dry = await runCli(['run', '--dry-run', '--prompts', shapes.pending], {cwd: shapes.dir})
      expect(dry.exitCode, dry.stderr).toBe(0)
      expect(dry.stdout).toContain(`── ${shapes.facts.pendingFirst}  (runner claude)`)
      expect(dry.stdout).toContain('   │ ## Shared Contract')
      expect(dry.stdout.split('\n').length).toBeGreaterThan(500)
      const alone = await runCli(['run', '--prompts', shapes.pending], {cwd: shapes.dir})
      expect(alone.exitCode).toBe(2)
      expect(alone.stderr).toContain('--prompts goes with --dry-run')
    })

    it('estimates the makespan of a re-run from the durations in the table', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'mdplan-dry-'))
      const text = await readFile(join(shapes.dir, shapes.finished), 'utf8')
      // B and D (both need only A and C) set back to pending.
      await writeFile(join(dir, 'plan.md'), text.replace('| B     | completed |', '| B     | pending   |').replace('| D     | completed |', '| D     | pending   |'))
      const dry = await runCli(['run', '--dry-run', 'plan.md'], {cwd: dir})
      expect(dry.exitCode, dry.stderr).toBe(0)
      expect(dry.stdout).toContain('2 of 4 agents would launch')
      expect(dry.stdout).toContain('Already completed (skipped): A, C')
      expect(dry.stdout).toMatch(/1\. +t\+0ms +B: /)
      expect(dry.stdout).toMatch(/2\. +t\+0ms +D: /)
      expect(dry.stdout).toContain(`Estimated makespan: ${shapes.facts.finishedBDMakespan} (from the durations in the table;`)
    })
  })
})

describe('run --dry-run', () => {
  it('names estimated_duration when the plan gives it, and says 1 agent', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-dry-'))
    await writeFile(join(dir, 'plan.md'), shellPlan({A: {script: 'set -e\ntouch a-ran', estimate: '2m'}}))
    const dry = await runCli(['run', '--dry-run', 'plan.md'], {cwd: dir})
    expect(dry.stdout).toContain('Dry run of plan.md: 1 of 1 agent would launch')
    expect(dry.stdout).toMatch(/1\. +t\+0ms +A: a-step +shell +touch a-ran/)
    expect(dry.stdout).toContain('Estimated makespan: 2m 00s (from estimated_duration;')
    expect(existsSync(join(dir, 'a-ran'))).toBe(false)
  })
})
