import {readFileSync} from 'node:fs'
import os from 'node:os'
import {isAlive} from './is-alive.js'
import {planTarget} from './plan-target.js'

/**
 * The pid of the live `mdplan run` on this host that holds the plan's lock, if one does (its
 * `owner.json`, beside the plan or beside the file a symlink points at). For messages only: a lock
 * another host holds, or one whose owner is gone, gives undefined.
 */
export function liveRunOf(planFile: string): number | undefined {
  for (const path of new Set([planFile, planTarget(planFile)])) {
    try {
      const owner = JSON.parse(readFileSync(`${path}.lock/owner.json`, 'utf8')) as {pid?: unknown; host?: unknown}
      if (typeof owner.pid === 'number' && owner.host === os.hostname() && owner.pid !== process.pid && isAlive(owner.pid)) return owner.pid
    } catch {}
  }
  return undefined
}
