import {existsSync, mkdirSync, readFileSync, utimesSync} from 'node:fs'
import {readFile, writeFile} from 'node:fs/promises'
import {hostname} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {readTable, runCli, setupPlan, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'

const lines = (file: string): string[] => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [])

describe('two runs of one plan', () => {
  it('started at the same instant: exactly one runs, the other exits 3 naming pid, host and start', async () => {
    for (let round = 0; round < 3; round++) {
      const {dir, plan} = await setupPlan({
        text: shellPlan({A: {script: 'echo "$MDPLAN_AGENT_ID" >> runs\nwhile [ ! -f go ]; do sleep 0.05; done'}, B: {deps: ['A'], script: 'echo B >> runs'}})
      })
      const runs = [startCli(['run', plan], {cwd: dir}), startCli(['run', plan], {cwd: dir})]
      // The loser must give up on its own while the winner still holds the plan (A waits for `go`).
      const loser = await Promise.race(runs.map((run, index) => run.then((result) => ({index, result}))))
      expect(loser.result.exitCode, loser.result.all).toBe(3)
      expect(loser.result.stderr).toMatch(new RegExp(`is being run by pid \\d+ on host ${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} since \\d{4}-\\d\\d-\\d\\dT`))
      const owner = JSON.parse(await readFile(join(`${plan}.lock`, 'owner.json'), 'utf8')) as {pid: number}
      expect(loser.result.stderr).toContain(`pid ${owner.pid} `)
      expect(owner.pid).toBe(runs[1 - loser.index]!.pid)
      await writeFile(join(dir, 'go'), '')
      const winner = await runs[1 - loser.index]!
      expect(winner.exitCode, winner.all).toBe(0)
      // One run launched A once; B ran once.
      expect(lines(join(dir, 'runs'))).toHaveLength(2)
      expect(existsSync(`${plan}.lock`)).toBe(false)
    }
  })

  it('takes over the stale lock of a SIGKILLed run at once and finishes its work', async () => {
    const {dir, plan} = await setupPlan({
      text: shellPlan({A: {script: 'echo A >> runs\nwhile [ ! -f go ]; do sleep 0.05; done'}, B: {deps: ['A'], script: 'echo B >> runs'}})
    })
    const first = startCli(['run', plan], {cwd: dir})
    await waitForTable(plan, (rows) => rows.A?.status === 'in_progress' && rows.A.agentId !== '')
    first.kill('SIGKILL')
    await first
    const owner = JSON.parse(await readFile(join(`${plan}.lock`, 'owner.json'), 'utf8')) as {pid: number}
    expect(owner.pid).toBe(first.pid)

    await writeFile(join(dir, 'go'), '')
    const started = Date.now()
    const second = await runCli(['run', plan], {cwd: dir})
    expect(second.exitCode, second.all).toBe(0)
    // At once: the owner is a dead pid on this host, so there is no waiting for the lock to go stale (30 s).
    expect(Date.now() - started).toBeLessThan(15_000)
    const {rows} = await readTable(plan)
    expect(rows.A!.status).toBe('completed')
    expect(rows.B!.status).toBe('completed')
    expect(existsSync(`${plan}.lock`)).toBe(false)
    // A kept running as a job while no run held the plan; the second run re-attached to it rather than start it again.
    expect(lines(join(dir, 'runs'))).toEqual(['A', 'B'])
  })

  // A run killed between the lock's mkdir and writing its owner.json leaves a lock with no owner.
  // A live owner writes owner.json within milliseconds of the mkdir, so an ownerless lock a few
  // seconds old is abandoned: it must not block runs until it goes stale (30 s). The kill soak
  // hit this about once in 50 kills (one kill in five lands in start-up, when the lock is taken).
  it('takes over an ownerless lock left by a run killed while taking it', async () => {
    const {dir, plan} = await setupPlan({text: shellPlan({A: {script: 'true'}})})
    mkdirSync(`${plan}.lock`)
    const old = new Date(Date.now() - 5000)
    utimesSync(`${plan}.lock`, old, old)
    const result = await runCli(['run', plan], {cwd: dir})
    expect(result.exitCode, result.all).toBe(0)
  })
})
