import fs from 'node:fs'
import {quietMs, readAll, settle} from './open-file.js'

// A save renamed over the plan after the check just before our rename, which our rename then replaced
// (src/store/commit-file.ts): the file a hard link taken right before that rename still holds.

/**
 * The file at `held` (a link to what our rename replaced), open, when it is not the file we read (`read`,
 * its inode): a save renamed over the plan after our check. Called inside the write mutex: no reading here.
 */
export function openSave(held: string, read: number): number | undefined {
  try {
    if (fs.statSync(held).ino === read) return undefined
    return fs.openSync(held, 'r')
  } catch {
    return undefined
  }
}

/** A save's bytes: one renamed into place is whole, but a writer may still be writing into it in place. */
export function readSave(fd: number): Buffer {
  const stat = fs.fstatSync(fd)
  const bytes = readAll(fd)
  return stat.size > 0 && Date.now() - stat.mtimeMs > quietMs ? bytes : settle(fd, bytes)
}
