import {spawn} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {acquireRunLock, LockHeldError} from '../../../src/store/lock.js'
import {lockVerdict} from '../../../src/store/lock-verdict.js'
import {isStopped} from '../../../src/store/is-stopped.js'

function tempPlan(): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'mdplan-lock-'))
  const file = path.join(folder, 'plan.md')
  fs.writeFileSync(file, '# Plan\n')
  return file
}

function fakeLock(file: string, owner: {pid: number; host: string; startedAt: string}, ageMs = 0): void {
  fs.mkdirSync(`${file}.lock`)
  fs.writeFileSync(path.join(`${file}.lock`, 'owner.json'), JSON.stringify(owner))
  const when = new Date(Date.now() - ageMs)
  fs.utimesSync(`${file}.lock`, when, when)
}

/**
 * Until `test` holds, polling; throws after `ms`. For what another process or a timer does in its own time:
 * a SIGSTOP stops its target only once the target runs again (on a loaded machine, some milliseconds after
 * kill(2) returned), and a lock's refresh lands when its timer and the disk get to it.
 */
async function until(what: string, test: () => boolean, ms = 10_000): Promise<void> {
  for (const deadline = Date.now() + ms; !test(); await new Promise((resolve) => setTimeout(resolve, 10))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
  }
}

/** A pid that surely is not running: a child that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''])
  await new Promise((resolve) => child.on('exit', resolve))
  return child.pid!
}

describe('run lock', () => {
  it('takes the lock, writes owner.json, and a second acquire fails naming pid, host and start', async () => {
    const file = tempPlan()
    const lock = await acquireRunLock(file)
    const owner = JSON.parse(fs.readFileSync(path.join(`${file}.lock`, 'owner.json'), 'utf8'))
    expect(owner).toEqual({pid: process.pid, host: os.hostname(), startedAt: lock.owner.startedAt})
    const second = acquireRunLock(file)
    await expect(second).rejects.toBeInstanceOf(LockHeldError)
    const error = (await second.catch((e: unknown) => e)) as LockHeldError
    expect(error.message).toBe(
      `${file} is being run by pid ${process.pid} on host ${os.hostname()} since ${lock.owner.startedAt}; wait for it or stop it (kill ${process.pid}). If that process is gone, remove ${file}.lock`
    )
    await lock.release()
    expect(fs.existsSync(`${file}.lock`)).toBe(false)
    const again = await acquireRunLock(file)
    await again.release()
  })

  it('a live holder in another process blocks us', async () => {
    const file = tempPlan()
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10000)'])
    try {
      fakeLock(file, {pid: child.pid!, host: os.hostname(), startedAt: '2026-01-01T00:00:00.000Z'})
      await expect(acquireRunLock(file)).rejects.toThrow(`is being run by pid ${child.pid} on host ${os.hostname()} since 2026-01-01T00:00:00.000Z`)
    } finally {
      child.kill()
    }
  })

  it('takes over at once from a dead owner on this host', async () => {
    const file = tempPlan()
    fakeLock(file, {pid: await deadPid(), host: os.hostname(), startedAt: '2026-01-01T00:00:00.000Z'})
    const lock = await acquireRunLock(file)
    expect(JSON.parse(fs.readFileSync(path.join(`${file}.lock`, 'owner.json'), 'utf8')).pid).toBe(process.pid)
    await lock.release()
  })

  it('does not judge a pid on another host: only staleness frees it', async () => {
    const file = tempPlan()
    fakeLock(file, {pid: await deadPid(), host: 'elsewhere', startedAt: '2026-01-01T00:00:00.000Z'})
    await expect(acquireRunLock(file)).rejects.toThrow('on host elsewhere')
  })

  it('takes over a stale lock (not refreshed within `stale`), even from a live pid', async () => {
    const file = tempPlan()
    fakeLock(file, {pid: process.pid, host: 'elsewhere', startedAt: '2026-01-01T00:00:00.000Z'}, 60_000)
    const lock = await acquireRunLock(file, {stale: 5000})
    expect(JSON.parse(fs.readFileSync(path.join(`${file}.lock`, 'owner.json'), 'utf8')).host).toBe(os.hostname())
    await lock.release()
  })

  it('a lock with no owner.json is held (until stale), with a message that says so', async () => {
    const file = tempPlan()
    fs.mkdirSync(`${file}.lock`)
    await expect(acquireRunLock(file)).rejects.toThrow(/being run by another process.*remove .*plan\.md\.lock/)
  })

  it('refreshes the lock while held, and a lost lock is surfaced, not thrown', async () => {
    const file = tempPlan()
    const seen: Error[] = []
    // proper-lockfile refreshes at most once a second.
    const lock = await acquireRunLock(file, {stale: 2000, update: 1000, onCompromised: (error) => seen.push(error)})
    const first = fs.statSync(`${file}.lock`).mtimeMs
    await until('a refresh of the lock', () => fs.statSync(`${file}.lock`).mtimeMs !== first)
    expect(lock.compromised).toBeUndefined()
    fs.rmSync(`${file}.lock`, {recursive: true})
    await until('the loss to be seen', () => seen.length > 0)
    // Seen once: neither the next refresh nor the owner watch reports it again.
    await new Promise((resolve) => setTimeout(resolve, 1200))
    expect(seen.length).toBe(1)
    expect(lock.compromised).toBe(seen[0])
    await lock.release()
  })
  it('never takes over a live owner on this host, however stale its lock: a stopped one is named as stopped', async () => {
    const file = tempPlan()
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'])
    try {
      await new Promise((resolve) => child.once('spawn', resolve))
      process.kill(child.pid!, 'SIGSTOP')
      // Stopped once the kernel says so (its state `T`), not when kill(2) returns.
      await until('the child to be stopped', () => isStopped(child.pid!))
      fakeLock(file, {pid: child.pid!, host: os.hostname(), startedAt: '2026-01-01T00:00:00.000Z'}, 10 * 60_000)
      const error = (await acquireRunLock(file, {stale: 2000}).catch((e: unknown) => e)) as LockHeldError
      expect(error).toBeInstanceOf(LockHeldError)
      expect(error.stopped).toBe(true)
      expect(error.message).toContain(`that process is stopped (Ctrl-Z or SIGSTOP): continue it with \`fg\` in its terminal or \`kill -CONT ${child.pid}\``)
      process.kill(child.pid!, 'SIGCONT')
      // Running again, still stale on disk: held, and not called stopped.
      const running = (await acquireRunLock(file, {stale: 2000}).catch((e: unknown) => e)) as LockHeldError
      expect(running.stopped).toBe(false)
      expect(JSON.parse(fs.readFileSync(path.join(`${file}.lock`, 'owner.json'), 'utf8')).pid).toBe(child.pid)
    } finally {
      process.kill(child.pid!, 'SIGCONT')
      child.kill()
    }
  })

  it('a lock whose owner.json is rewritten is lost, found by its watch and by check()', async () => {
    const file = tempPlan()
    const seen: Error[] = []
    const lock = await acquireRunLock(file, {stale: 2000, update: 1000, onCompromised: (error) => seen.push(error)})
    expect(lock.check()).toBeUndefined()
    fs.writeFileSync(path.join(`${file}.lock`, 'owner.json'), JSON.stringify({pid: 1, host: 'elsewhere', startedAt: 'x'}))
    expect(lock.check()?.message).toBe(`${file}.lock/owner.json now names pid 1 on host elsewhere`)
    expect(seen).toHaveLength(1)
    await lock.release()
    // Released without removing what is now another run's.
    expect(fs.existsSync(`${file}.lock`)).toBe(true)
  })

  it('lockVerdict: the rule in one table', () => {
    const owner = {pid: 7, host: 'here', startedAt: ''}
    const judge = (o: typeof owner | undefined, ageMs: number, alive: boolean, stopped = false, host = 'here') =>
      lockVerdict({owner: o, ageMs, staleMs: 30_000, ownerlessMs: 2000, host, isAlive: () => alive, isStopped: () => stopped}).kind
    expect(judge(owner, 10 * 60_000, true)).toBe('held')
    expect(judge(owner, 10 * 60_000, true, true)).toBe('stopped')
    expect(judge(owner, 0, false)).toBe('take-over')
    expect(judge({...owner, host: 'there'}, 29_000, false)).toBe('held')
    expect(judge({...owner, host: 'there'}, 31_000, true)).toBe('take-over')
    expect(judge(undefined, 1000, true)).toBe('held')
    expect(judge(undefined, 3000, true)).toBe('take-over')
  })
})
