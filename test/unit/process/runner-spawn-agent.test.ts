import {readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {spawnAgent} from '../../../src/process/spawn-agent.js'
import {isAlive, tempDir, waitFor} from '../../helpers/runner-support.js'

describe('spawnAgent', () => {
  it('returns output, streams lines and appends both streams to the log', async () => {
    const dir = tempDir()
    const logFile = join(dir, 'deep', 'er', 'a.log')
    const lines: string[] = []
    const result = await spawnAgent({
      file: 'sh',
      args: ['-c', 'printf "one\\r\\ntwo\\nthree"; echo oops >&2; exit 3'],
      cwd: dir,
      logFile,
      onLine: (line) => lines.push(line)
    })
    expect(result.exitCode).toBe(3)
    expect(result.spawnFailed).toBe(false)
    expect(result.stdout).toBe('one\r\ntwo\nthree')
    expect(result.stderr).toBe('oops\n')
    expect(lines).toEqual(['one', 'two', 'three'])
    const log = readFileSync(logFile, 'utf8')
    expect(log).toContain('two')
    expect(log).toContain('oops')
    await spawnAgent({file: 'sh', args: ['-c', 'echo again'], cwd: dir, logFile})
    expect(readFileSync(logFile, 'utf8')).toMatch(/oops\n[\s\S]*again\n$/)
    expect(statSync(logFile).mode & 0o777).toBe(0o666 & ~process.umask())
  })

  it('closes stdin so a reader sees end of file at once', async () => {
    const dir = tempDir()
    const result = await spawnAgent({file: 'sh', args: ['-c', 'cat; echo done'], cwd: dir, logFile: join(dir, 'l.log')})
    expect(result.stdout).toBe('done\n')
  })

  it('passes env additions and runs in cwd', async () => {
    const dir = tempDir()
    const result = await spawnAgent({
      file: 'sh',
      args: ['-c', 'echo "$FOO" && pwd'],
      cwd: dir,
      env: {FOO: 'bar'},
      logFile: join(dir, 'l.log')
    })
    expect(result.stdout.split('\n')[0]).toBe('bar')
    expect(readFileSync(join(dir, 'l.log'), 'utf8')).not.toContain('FOO')
  })

  it('gives the agent a PWD naming its own folder, not mdplan\'s (CLIs such as opencode take their project from it)', async () => {
    const dir = tempDir()
    // Not a shell: a shell would set PWD itself and hide what the agent was given.
    const result = await spawnAgent({file: process.execPath, args: ['-e', 'process.stdout.write(process.env.PWD ?? "")'], cwd: dir, logFile: join(dir, 'l.log')})
    expect(result.stdout).toBe(dir)
    expect(process.cwd()).not.toBe(dir)
  })

  it('reports a missing executable as a value', async () => {
    const dir = tempDir()
    const result = await spawnAgent({file: 'mdplan-no-such-cli', args: [], cwd: dir, logFile: join(dir, 'l.log')})
    expect(result.spawnFailed).toBe(true)
    expect(result.error).toMatch(/ENOENT|not found/)
  })

  it('kills the whole tree on timeout', async () => {
    const dir = tempDir()
    const pidFile = join(dir, 'grandchild.pid')
    const started = Date.now()
    const result = await spawnAgent({
      file: 'sh',
      args: ['-c', `sleep 30 & echo $! > ${pidFile}; wait`],
      cwd: dir,
      logFile: join(dir, 'l.log'),
      timeoutMs: 300
    })
    expect(result.timedOut).toBe(true)
    expect(Date.now() - started).toBeLessThan(5000)
    const grandchild = Number(readFileSync(pidFile, 'utf8'))
    await waitFor(() => !isAlive(grandchild))
  })

  it('SIGKILLs a tree that ignores SIGTERM after the grace', async () => {
    const dir = tempDir()
    const result = await spawnAgent({
      file: 'sh',
      args: ['-c', `trap '' TERM; sleep 30 & wait; sleep 30`],
      cwd: dir,
      logFile: join(dir, 'l.log'),
      timeoutMs: 200
    })
    expect(result.timedOut).toBe(true)
    expect(result.signal).toBe('SIGKILL')
  })

  it('kills the whole tree on abort', async () => {
    const dir = tempDir()
    const pidFile = join(dir, 'grandchild.pid')
    const controller = new AbortController()
    const running = spawnAgent({
      file: 'sh',
      args: ['-c', `sleep 30 & echo $! > ${pidFile}; wait`],
      cwd: dir,
      logFile: join(dir, 'l.log'),
      signal: controller.signal
    })
    await waitFor(() => {
      try {
        return readFileSync(pidFile, 'utf8').trim() !== ''
      } catch {
        return false
      }
    })
    controller.abort()
    const result = await running
    expect(result.interrupted).toBe(true)
    await waitFor(() => !isAlive(Number(readFileSync(pidFile, 'utf8'))))
  })

  it('does not wait for background leftovers after the agent exits', async () => {
    const dir = tempDir()
    const started = Date.now()
    const result = await spawnAgent({file: 'sh', args: ['-c', 'sleep 30 & echo bye'], cwd: dir, logFile: join(dir, 'l.log')})
    expect(result.exitCode).toBe(0)
    expect(Date.now() - started).toBeLessThan(5000)
  })
})
