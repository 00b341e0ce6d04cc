import {existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {jobKey, jobKeyPrefix, jobSpace} from '../../../src/hosts/job-key.js'
import {localJobs} from '../../../src/hosts/local-jobs.js'
import {jobsFolder} from '../../../src/layout/jobs-folder.js'
import {planKey} from '../../../src/layout/plan-key.js'
import {runLogFile} from '../../../src/layout/run-log.js'
import {planSlug} from '../../../src/layout/worktree-names.js'
import {olderJobKeys} from '../../../src/run/older-job-keys.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})

/**
 * `plan.md` → `plans/plan.md`, and what a run of an older version through the link left: a job of A that has
 * ended (its exit status written), named by the link's path, which the row names and the run log records.
 */
function olderRun(logged: boolean) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'mdplan-older-keys-')))
  dirs.push(root)
  mkdirSync(join(root, 'plans'))
  const target = join(root, 'plans', 'plan.md')
  writeFileSync(target, '')
  symlinkSync('plans/plan.md', join(root, 'plan.md'))
  const link = join(root, 'plan.md')
  const older = jobKey(jobSpace(planSlug(link, root), root), 'A', 1, 'abc123')
  const other = jobKey(jobSpace('plans--other', root), 'A', 1, 'def456')
  for (const key of [older, other]) {
    mkdirSync(join(jobsFolder(target), key, 'run'), {recursive: true})
    writeFileSync(join(jobsFolder(target), key, 'rc'), '0\n')
  }
  const time = new Date().toISOString()
  const events = [
    {type: 'run-started', time, plan: link, agents: 1, concurrency: 1, resumed: false},
    {type: 'launched', time, agent: 'A', attempt: 1, resumed: false, log: 'A.1.log', host: 'local', job: logged ? older : other}
  ]
  mkdirSync(join(runLogFile(target), '..'), {recursive: true})
  writeFileSync(runLogFile(target), events.map((event) => JSON.stringify(event)).join('\n') + '\n')
  return {root, target, older, other, own: jobKeyPrefix(jobSpace(planKey(target, root), root))}
}

describe('the keys an older run through a symlink gave the plan’s local jobs', () => {
  it('are the plan’s when its run log records launching them: a run through the target goes back to the job, and sweeps it once no row names it', async () => {
    const {root, target, older, other, own} = olderRun(true)
    expect(older.startsWith(own)).toBe(false)
    const keys = olderJobKeys(target, own, [older, other])
    expect(keys).toEqual([older])
    const jobs = localJobs({file: target, root, prefix: own, older: keys, named: [older, other]})
    expect(jobs.reattach(older)).toBe(true)
    expect(jobs.reattach(other)).toBe(false)
    await jobs.sweep(new Set([older]))
    expect(existsSync(join(jobsFolder(target), older))).toBe(true)
    await jobs.sweep(new Set())
    expect(existsSync(join(jobsFolder(target), older))).toBe(false)
    // Another prefix's job no row of this plan's keeps is never touched.
    expect(existsSync(join(jobsFolder(target), other))).toBe(true)
  })

  it('are not when the log does not record them (a key of another plan copied into a row), and the log is not read for the plan’s own keys', () => {
    const {target, older, own} = olderRun(false)
    expect(olderJobKeys(target, own, [older])).toEqual([])
    expect(olderJobKeys(join(target, '..', 'missing.md'), own, [`${own}A-a1-abc123`])).toEqual([])
  })
})
