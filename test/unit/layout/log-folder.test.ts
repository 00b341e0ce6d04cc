import {mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import type {RunEvent} from '../../../src/events.js'
import {logFolder} from '../../../src/layout/log-folder.js'
import {legacyLogFolders} from '../../../src/layout/legacy-log-folders.js'
import {loggedAttempts} from '../../../src/layout/logged-attempts.js'
import {readRunLogs} from '../../../src/report/read-run-logs.js'
import {runLogFile} from '../../../src/layout/run-log.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})
function temp(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mdplan-log-folder-')))
  dirs.push(dir)
  return dir
}

describe('logFolder', () => {
  it('is beside the plan, keyed by its name there: plans of one folder never share one', () => {
    expect(logFolder('/r/sub/plan.md')).toBe('/r/sub/.mdplan/logs/plan')
    const names = ['a.md', 'a.MD', 'A.md', 'a b.md', 'a-b.md', 'a.md.md', 'a']
    const folders = names.map((name) => logFolder(`/r/${name}`))
    expect(new Set(folders).size).toBe(names.length)
    expect(folders.every((folder) => folder.startsWith('/r/.mdplan/logs/'))).toBe(true)
  })

  it('follows a symlinked plan to its target, as the lock and the registry do', () => {
    const dir = temp()
    mkdirSync(join(dir, 'plans'))
    writeFileSync(join(dir, 'plans', 'real.md'), '')
    symlinkSync(join(dir, 'plans', 'real.md'), join(dir, 'link.md'))
    expect(logFolder(join(dir, 'link.md'))).toBe(join(dir, 'plans', '.mdplan', 'logs', 'real'))
  })
})

describe('legacyLogFolders', () => {
  it('names the folders older versions wrote from this run’s folder and from each folder above the plan, not the current one', () => {
    const folders = legacyLogFolders('/r/sub/plan.md', '/r/work')
    expect(folders).toEqual(expect.arrayContaining(['/r/work/.mdplan/logs/plan', '/r/.mdplan/logs/sub--plan']))
    expect(folders).not.toContain(logFolder('/r/sub/plan.md'))
    expect(new Set(folders).size).toBe(folders.length)
  })
})

describe('loggedAttempts', () => {
  it('takes the highest number over the plan’s log folder and the legacy ones', () => {
    const dir = temp()
    const plan = join(dir, 'sub', 'plan.md')
    for (const [folder, names] of [
      [logFolder(plan), ['A.1.log']],
      [join(dir, '.mdplan', 'logs', 'sub--plan'), ['A.3.log', 'B.2.log']],
      [join(dir, 'work', '.mdplan', 'logs', 'plan'), ['B.4.log']]
    ] as const) {
      mkdirSync(folder, {recursive: true})
      for (const name of names) writeFileSync(join(folder, name), '')
    }
    expect(loggedAttempts(plan, join(dir, 'sub'))).toEqual(new Map([['A', 3], ['B', 2]]))
    expect(loggedAttempts(plan, join(dir, 'work'))).toEqual(new Map([['A', 3], ['B', 4]]))
  })
})

describe('readRunLogs', () => {
  const line = (event: Record<string, unknown>) => JSON.stringify(event) + '\n'
  const started = (plan: string, time: string) => line({type: 'run-started', time, plan, agents: 1, concurrency: 1, resumed: false})
  const launched = (agent: string, time: string) => line({type: 'launched', time, agent, attempt: 1, resumed: false, log: 'x'})

  it('reads the runs of the plan from the new and the old logs, oldest run first, each file once', () => {
    const dir = temp()
    const plan = join(dir, 'sub', 'plan.md')
    mkdirSync(join(dir, 'sub'))
    writeFileSync(plan, '')
    const current = runLogFile(plan)
    const legacy = join(dir, '.mdplan', 'logs', 'sub--plan', 'run.ndjson')
    mkdirSync(join(current, '..'), {recursive: true})
    mkdirSync(join(legacy, '..'), {recursive: true})
    writeFileSync(current, started(plan, '2026-01-02T00:00:00.000Z') + launched('C', '2026-01-02T00:00:01.000Z'))
    // Another plan's run in an old shared log is left out; the plan named by another path to it is not.
    writeFileSync(
      legacy,
      started(plan, '2026-01-01T00:00:00.000Z') +
        launched('A', '2026-01-01T00:00:01.000Z') +
        started(join(dir, 'other.md'), '2026-01-01T12:00:00.000Z') +
        launched('X', '2026-01-01T12:00:01.000Z') +
        started(join(dir, 'sub', '..', 'sub', 'plan.md'), '2026-01-03T00:00:00.000Z') +
        launched('D', '2026-01-03T00:00:01.000Z')
    )
    // From sub/ (its own key is the current folder), from the root, and from a symlink to the root: the same runs.
    symlinkSync(dir, join(dir, 'sub', 'up'))
    for (const cwd of [join(dir, 'sub'), dir, join(dir, 'sub', 'up')]) {
      const events: RunEvent[] = readRunLogs(plan, cwd)
      expect(events.filter((e) => e.type === 'launched').map((e) => (e as {agent: string}).agent), cwd).toEqual(['A', 'C', 'D'])
    }
  })
})
