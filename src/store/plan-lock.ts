import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {isAlive} from './is-alive.js'
import {acquireRunLock, type RunLock, type RunLockOptions} from './lock.js'
import type {LockOwner} from './lock-verdict.js'
import {planTarget} from './plan-target.js'

/**
 * A plan path that was a symlink when a run that is gone began, and is a
 * regular file now (a save by temp + rename, `sed -i`, replaced the link):
 * that run's agents, lock and registry are beside the file the link pointed
 * at, so a run of this file would start them again beside its leftovers.
 */
export class LinkReplacedError extends Error {
  readonly code = 'ELINKREPLACED'
  constructor(
    readonly planFile: string,
    readonly owner: LockOwner
  ) {
    const target = owner.target!
    const shown = path.relative(path.dirname(planFile), target)
    super(
      `${planFile} was a symlink to ${target} when pid ${owner.pid} (now gone) began its run, and a save has replaced the link with a regular file; ` +
        `that run's agents, lock and record of what it left running are beside ${target}, so nothing was launched. ` +
        `Put the link back (\`mv ${path.basename(planFile)} ${path.basename(planFile)}.saved && ln -s ${shown} ${path.basename(planFile)}\`, then bring your edit from ${path.basename(planFile)}.saved into ${target}) and run again, or run \`mdplan run ${target}\`, which goes back to what that run left running. ` +
        `If ${planFile} is meant to be a plan of its own now, do that first, then remove ${planFile}.lock`
    )
    this.name = 'LinkReplacedError'
  }
}

/**
 * The run lock of a plan path (`acquireRunLock`), and for a symlink the lock
 * of the link's own path too: a save that replaces the link with a file
 * (temp + rename, `sed -i`) leaves the running mdplan on the file it pointed
 * at, and a second `mdplan run` of that path must still find it held (it
 * exits 3, as for any live run). A lock left there by a run that is gone,
 * which began when the path was a link, makes a run of the file the save
 * left refuse (LinkReplacedError): its agents are beside the link's target.
 */
export async function acquirePlanLock(file: string, options: RunLockOptions = {}, target = planTarget(file)): Promise<RunLock> {
  if (target === file) {
    const left = readOwner(`${file}.lock`)
    const gone = left !== undefined && !(left.host === os.hostname() && isAlive(left.pid))
    if (left?.target !== undefined && left.target !== file && gone && fs.existsSync(left.target)) throw new LinkReplacedError(file, left)
    return acquireRunLock(file, options)
  }
  // The target the plan was opened through (`target`, the store's): the link may have been replaced since.
  const lock = await acquireRunLock(target, options)
  let own: RunLock
  try {
    own = await acquireRunLock(file, {...options, literal: true, linkTo: target})
  } catch (error) {
    await lock.release()
    throw error
  }
  return {
    path: lock.path,
    owner: lock.owner,
    get compromised() {
      return lock.compromised ?? own.compromised
    },
    check: () => lock.check() ?? own.check(),
    async release() {
      await own.release()
      await lock.release()
    }
  }
}

function readOwner(lockPath: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(fs.readFileSync(path.join(lockPath, 'owner.json'), 'utf8')) as LockOwner
    return typeof owner.pid === 'number' && typeof owner.host === 'string' ? owner : undefined
  } catch {
    return undefined
  }
}
