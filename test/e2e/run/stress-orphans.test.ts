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
  // A local agent runs as a job in `.mdplan/local-jobs/<key>/`, outside mdplan's process group: a SIGKILL of
  // `mdplan run` leaves it running, and the next run re-attaches to it instead of starting it again.
  it('are not running twice at once after the next run resumes: it re-attaches to the job', async () => {
    const {dir, plan} = await setupPlan({
      text: shellPlan({A: {script: 'echo "start $MDPLAN_AGENT_ID" >> runs\nsleep 3\necho "done $MDPLAN_AGENT_ID" >> runs'}})
    })
    const first = startCli(['run', plan], {cwd: dir})
    await waitForTable(plan, (rows) => rows.A?.status === 'in_progress' && rows.A.agentId !== '')
    await waitFor(() => lines(join(dir, 'runs')).length === 1)
    const jobs = join(dir, '.mdplan', 'local-jobs')
    await waitFor(() => existsSync(jobs) && readdirSync(jobs).some((key) => existsSync(join(jobs, key, 'pid'))))
    first.kill('SIGKILL')
    await first
    const second = await runCli(['run', plan], {cwd: dir})
    expect(second.exitCode, second.all).toBe(0)
    expect(second.all).toContain('launched A (attempt 1, resumed)')
    expect((await readTable(plan)).rows.A!.status).toBe('completed')
    // Counted from the agent's side: one start and one end, the same job's.
    const runs = lines(join(dir, 'runs')).map((line) => line.split(' '))
    expect(runs.map(([kind]) => kind)).toEqual(['start', 'done'])
    expect(runs[1]![1]).toBe(runs[0]![1])
  }, 30_000)
})
