import {mkdtemp} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {fileURLToPath} from 'node:url'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {registerReport} from '../../../src/cli/commands/report.js'
import {runCommand} from '../../../fixtures/report/run-command.js'

const dir = fileURLToPath(new URL('../../../fixtures/report/every-status', import.meta.url))

describe('mdplan report', () => {
  it('prints the scorecard computed from the file', async () => {
    const run = await runCommand(registerReport, ['report', 'plan.md'], {cwd: dir})
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^Scorecard\n/)
    expect(run.stdout).toMatch(/D +db +failed +3 +2m 05s/)
    expect(run.stdout).toMatch(/Speedup +1\.33×/)
    expect(run.stdout).not.toContain('\x1b')
  })

  it('--json prints the Scorecard object', async () => {
    const run = await runCommand(registerReport, ['report', 'plan.md', '--json'], {cwd: dir})
    const scorecard = JSON.parse(run.stdout)
    expect(scorecard).toMatchObject({wallClockMs: 180_000, sumOfPartsMs: 240_000, speedup: 1.33, build: 'fail (2 attempts)'})
    expect(scorecard.integration).toBeUndefined()
    expect(scorecard.agents).toHaveLength(5)
  })

  it('colours on a terminal unless NO_COLOR', async () => {
    expect((await runCommand(registerReport, ['report', 'plan.md'], {cwd: dir, isTTY: true})).stdout).toContain('\x1b[')
    expect((await runCommand(registerReport, ['report', 'plan.md'], {cwd: dir, isTTY: true, env: {NO_COLOR: '1'}})).stdout).not.toContain('\x1b[')
  })

  it('says what to do when the plan is missing', async () => {
    const run = await runCommand(registerReport, ['report', 'missing.md'], {cwd: await mkdtemp(join(tmpdir(), 'mdplan-report-'))})
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('does not exist')
    expect(run.stderr).toContain('run `mdplan report` again')
  })

  it('a missing argument is a usage error', async () => {
    const run = await runCommand(registerReport, ['report'], {cwd: dir})
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/missing required argument 'plan'/)
  })
})
