import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {readTable, runCli, setupPlan, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'

const lines = (file: string): string[] => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [])

async function waitFor(predicate: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

describe('agents of a SIGKILLed run', () => {
  // Agents run in their own process groups, so a SIGKILL of `mdplan run` alone leaves them
  // running; the next run ends them (from .mdplan/run/<plan>.agents) before relaunching.
  it('are not running twice at once after the next run resumes', async () => {
    const {dir, plan} = await setupPlan({
      text: shellPlan({A: {script: 'echo "start $MDPLAN_AGENT_ID" >> runs\nsleep 3\necho "done $MDPLAN_AGENT_ID" >> runs'}})
    })
    const first = startCli(['run', plan], {cwd: dir})
    await waitForTable(plan, (rows) => rows.A?.status === 'in_progress' && rows.A.agentId !== '')
    await waitFor(() => lines(join(dir, 'runs')).length === 1)
    // The agent may write its first line a moment before mdplan records its process group
    // (a busy machine can deschedule mdplan right after the fork): kill only once it is on record.
    const registry = join(dir, '.mdplan', 'run')
    const recorded = (): boolean =>
      existsSync(registry) && readdirSync(registry).some((name) => name.endsWith('.agents') && lines(join(registry, name)).some((line) => line.startsWith('+')))
    await waitFor(recorded)
    first.kill('SIGKILL')
    await first
    const second = await runCli(['run', plan], {cwd: dir})
    expect(second.exitCode, second.all).toBe(0)
    expect((await readTable(plan)).rows.A!.status).toBe('completed')
    // Killed or waited for, the orphan must not still be working once the relaunch started.
    const runs = lines(join(dir, 'runs')).map((line) => line.split(' '))
    const orphan = runs[0]![1]
    const relaunch = runs.findIndex(([kind, id]) => kind === 'start' && id !== orphan)
    expect(relaunch).toBeGreaterThan(0)
    expect(runs.slice(relaunch).filter(([kind, id]) => kind === 'done' && id === orphan)).toEqual([])
  }, 30_000)
})
