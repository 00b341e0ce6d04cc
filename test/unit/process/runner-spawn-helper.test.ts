import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {spawnAgent} from '../../../src/process/spawn-agent.js'
import {tempDir} from '../../helpers/runner-support.js'

// Issue 24: a launch must not fork mdplan's own (large) process. Agents are forked by one small,
// long-lived helper; what an agent sees and what spawnAgent returns stay as they were.
describe('the spawn helper', () => {
  it('forks every agent from one helper process, not from mdplan', async () => {
    const dir = tempDir()
    const parents = await Promise.all(
      [1, 2, 3].map((n) => spawnAgent({file: 'sh', args: ['-c', 'echo $PPID'], cwd: dir, logFile: join(dir, `${n}.log`)}).then((result) => Number(result.stdout.trim())))
    )
    expect(parents.every((pid) => pid > 1)).toBe(true)
    expect(new Set(parents).size).toBe(1)
    expect(parents[0]).not.toBe(process.pid)
  })

  it('streams large output in order, bytes intact, to the result, the log and the line callback', async () => {
    const dir = tempDir()
    const lines: string[] = []
    const script = 'i=0; while [ $i -lt 20000 ]; do echo "line $i ü"; i=$((i+1)); done; echo tail >&2'
    const result = await spawnAgent({file: 'sh', args: ['-c', script], cwd: dir, logFile: join(dir, 'big.log'), onLine: (line) => lines.push(line)})
    expect(result.exitCode).toBe(0)
    expect(lines).toHaveLength(20000)
    expect(lines[19999]).toBe('line 19999 ü')
    expect(result.stdout.split('\n')).toHaveLength(20001)
    expect(result.stderr).toBe('tail\n')
    expect(readFileSync(join(dir, 'big.log'), 'utf8')).toContain('line 12345 ü\n')
  })

  it('passes the prompt on stdin and the environment, and reports a signal', async () => {
    const dir = tempDir()
    const result = await spawnAgent({file: 'sh', args: ['-c', 'read line; echo "$line $MDPLAN_X"; kill -TERM $$'], cwd: dir, env: {MDPLAN_X: 'x'}, input: 'prompt\n', logFile: join(dir, 'l.log')})
    expect(result.stdout).toBe('prompt x\n')
    expect(result.signal).toBe('SIGTERM')
    expect(result.spawnFailed).toBe(false)
  })

  it('outlives a Ctrl-C sent to it (the terminal signals mdplan, which stops the agents its own way)', async () => {
    const dir = tempDir()
    let helper = 0
    let signalled!: () => void
    const sent = new Promise<void>((resolve) => (signalled = resolve))
    const running = spawnAgent({
      file: 'sh',
      // The agent waits for the test to have signalled the helper (a file it creates), then finishes normally.
      args: ['-c', `echo $PPID; while [ ! -f go ]; do sleep 0.02; done; echo done`],
      cwd: dir,
      logFile: join(dir, 'l.log'),
      onLine: (line) => {
        if (helper !== 0) return
        helper = Number(line)
        process.kill(helper, 'SIGINT')
        process.kill(helper, 'SIGHUP')
        signalled()
      }
    })
    await sent
    writeFileSync(join(dir, 'go'), '')
    const result = await running
    expect(result.spawnFailed).toBe(false)
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toBe(`${helper}\ndone\n`)
  })

  it('reports a missing executable in execa\'s words', async () => {
    const dir = tempDir()
    const result = await spawnAgent({file: 'mdplan-no-such-cli', args: ['a b'], cwd: dir, logFile: join(dir, 'l.log')})
    expect(result.spawnFailed).toBe(true)
    expect(result.error).toBe("Command failed with ENOENT: mdplan-no-such-cli 'a b'\nspawn mdplan-no-such-cli ENOENT")
  })
})
