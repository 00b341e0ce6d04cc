import {existsSync, readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, shellPlan, startCli} from '../../helpers/run-cli.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {mkdtemp} from 'node:fs/promises'
import {tmpdir} from 'node:os'

/**
 * Output of any size: an agent that prints a gigabyte (a verbose build, a runaway log loop) and exits 0 completes
 * once, and the coordinator's memory stays bounded (every byte goes to the attempt's log; what the result needs
 * comes from bounded tails).
 */

beforeAll(isolateGitConfig)

const gigabyte = 1024 * 1024 * 1024

/** The process's resident memory now (kB), or undefined once it is gone. */
function rssKb(pid: number): number | undefined {
  try {
    const found = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    // A process that has exited and not been reaped yet has no VmRSS line.
    return found ? Number(found[1]) : undefined
  } catch {
    return undefined
  }
}

describe('an agent that prints a gigabyte (git repository)', () => {
  it.skipIf(!existsSync('/proc/self/status'))('completes once, its whole output in its log, the coordinator under 300 MB', async () => {
    const log = join(await mkdtemp(join(tmpdir(), 'mdplan-big-log-')), 'agents.log')
    const repo = await tempRepo()
    const script = logged(log, `yes 'a line of a verbose build, over and over, as a runaway loop prints it' | head -c ${gigabyte}\necho\necho 'RESULT: SUCCESS'`)
    await repo.commit('plan', {'plan.md': shellPlan({A: {script}})})
    const plan = join(repo.root, 'plan.md')
    const run = startCli(['run', plan, '--json'], {cwd: repo.root, env: {GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'}})
    let peak = 0
    const sampler = setInterval(() => (peak = Math.max(peak, rssKb(run.pid!) ?? 0)), 50)
    const result = await run
    clearInterval(sampler)
    expect(result.exitCode, result.all.slice(-2000)).toBe(0)
    expect((await readTable(plan)).rows.A!.status).toBe('completed')
    const side = await readAgentLog(log)
    expect(Object.fromEntries(side.starts)).toEqual({'A#1': 1})
    expect(side.unfinished).toEqual([])
    // The attempt's log has every byte of it (and the two lines after).
    expect(statSync(join(repo.root, '.mdplan', 'logs', 'plan', 'A.1.log')).size).toBeGreaterThan(gigabyte)
    expect(peak, `peak RSS ${Math.round(peak / 1024)} MB`).toBeGreaterThan(0)
    expect(peak / 1024, `peak RSS ${Math.round(peak / 1024)} MB`).toBeLessThan(300)
    await repo.cleanup()
  }, 300_000)
})
