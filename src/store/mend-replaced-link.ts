import fs from 'node:fs'
import path from 'node:path'
import {atomicWrite} from './atomic-write.js'
import {withWriteMutex} from './write-mutex.js'

/** A plan run through a symlink: the link's path, the file it points at, and its text as it was made. */
export interface PlanLink {
  link: string
  target: string
  text: string
}

/** `file`, which was a link to `target` when the plan was opened (replaced since: a link to the target by its relative path). */
export function planLink(file: string, target: string): PlanLink {
  try {
    return {link: file, target, text: fs.readlinkSync(file)}
  } catch {
    return {link: file, target, text: path.relative(path.dirname(file), target)}
  }
}

/**
 * A save that replaced the link with a regular file (an editor's temp +
 * rename, `sed -i`) is a save of the plan the run writes: its bytes go to the
 * target as any save does (temp + rename under the target's write mutex, so
 * mdplan's next write merges them as the person's edit), and the link is put
 * back, so the next save, `mdplan status` and a second `mdplan run` go
 * through it again. Left alone, the edit never reached the running plan and
 * the file held a second table nothing else wrote. Returns true when it did
 * so; a save that lands on the file meanwhile is left for the next call.
 */
export function mendReplacedLink(link: PlanLink): boolean {
  let saved: fs.Stats
  let bytes: Buffer
  try {
    saved = fs.lstatSync(link.link)
    if (!saved.isFile()) return false
    bytes = fs.readFileSync(link.link)
  } catch {
    return false
  }
  let mode: number | undefined
  try {
    mode = fs.statSync(link.target).mode & 0o7777
  } catch {
    // The target is gone: the save makes it again.
  }
  atomicWrite(link.target, bytes, {mode, exclusive: (checkAndRename) => withWriteMutex(link.target, checkAndRename)})
  const temp = path.join(path.dirname(link.link), `.${path.basename(link.link)}.${process.pid}.mdplan-link`)
  try {
    fs.rmSync(temp, {force: true})
    fs.symlinkSync(link.text, temp)
    // Only over the save that was copied: a newer one is copied (and the link put back) on the next call.
    const now = fs.lstatSync(link.link)
    if (now.ino !== saved.ino || now.mtimeMs !== saved.mtimeMs || now.size !== saved.size) return true
    fs.renameSync(temp, link.link)
  } catch {
    // The link stays a file until the next call; its save is in the target already.
  } finally {
    fs.rmSync(temp, {force: true})
  }
  return true
}
