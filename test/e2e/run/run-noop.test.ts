import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {runCli} from '../../helpers/run-cli.js'
import {forEachShapes} from '../../helpers/real-plans.js'

let repo: TempRepo | undefined
beforeAll(isolateGitConfig)
afterEach(async () => {
  await repo?.cleanup()
  repo = undefined
})

describe('a run that has nothing to do', () => {
  it('leaves a completed plan byte-identical, launches nothing and keeps its timing for report', async () => {
    const demo = readFileSync(new URL('../../../plans/demo.md', import.meta.url), 'utf8')
    repo = await tempRepo({'plan.md': demo})
    const first = await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(first.exitCode, first.all).toBe(0)
    await repo.commit('ran')
    const done = readFileSync(join(repo.root, 'plan.md'))
    const report = await runCli(['report', 'plan.md', '--json'], {cwd: repo.root})
    for (let i = 0; i < 2; i++) {
      const again = await runCli(['run', 'plan.md', '--json'], {cwd: repo.root})
      expect(again.exitCode, again.all).toBe(0)
      expect(again.stdout).not.toContain('"type":"launched"')
      expect(readFileSync(join(repo.root, 'plan.md')).equals(done), `run ${i + 2} changed the file`).toBe(true)
    }
    expect(await repo.git('status', '--porcelain', '--', 'plan.md')).toBe('')
    expect((await runCli(['report', 'plan.md', '--json'], {cwd: repo.root})).stdout).toBe(report.stdout)
  })
})

forEachShapes((shapes) => {
  it('leaves a finished plan in a real plan\'s shape, committed, byte-identical, its own timestamp format kept, with no agent CLI installed', async () => {
    const real = readFileSync(join(shapes.dir, shapes.finished))
    repo = await tempRepo({'plan.md': real.toString('utf8')})
    // The plan names the claude runner; none is installed here (PATH without it), and none is needed.
    const result = await runCli(['run', 'plan.md', '--json'], {cwd: repo.root, env: {MDPLAN_CLAUDE_BIN: '/nonexistent/claude'}})
    expect(result.exitCode, result.all).toBe(0)
    expect(result.stdout).not.toContain('"type":"launched"')
    expect(readFileSync(join(repo.root, 'plan.md')).equals(real)).toBe(true)
    const report = JSON.parse((await runCli(['report', 'plan.md', '--json'], {cwd: repo.root})).stdout) as {wallClockMs: number}
    // The file's own timing (`Last updated:` minus `Started:`), not hours since.
    expect(report.wallClockMs).toBe(shapes.facts.finishedWallClockMs)
  })
})
