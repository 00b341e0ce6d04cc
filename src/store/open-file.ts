import fs from 'node:fs'
import {sleepSync} from '../util/sleep-sync.js'

/** How long a file someone else just wrote must stay unchanged before it is merged. */
const settleMs = 3
/** A file not modified for this long is no longer being written. */
export const quietMs = 50

/**
 * The bytes of a file someone else is writing, once they settle: in-place
 * writers truncate, then write, so we may catch one halfway. Two reads a
 * moment apart must agree; an empty file gets up to a second to fill.
 */
export function settle(fd: number, seen: Buffer): Buffer {
  let last = seen
  for (let waited = 0; waited < 1000; ) {
    const pause = last.length === 0 ? 10 : settleMs
    sleepSync(pause)
    waited += pause
    const again = readAll(fd)
    if (again.equals(last) && again.length > 0) return again
    last = again
  }
  return last
}

/**
 * Close a replaced version of the plan, off the event loop: it is usually the
 * inode's last reference, and the kernel frees its pages in the close (about
 * 0.5 ms for a 1000-agent plan, on every write).
 */
export function release(fd: number): void {
  fs.close(fd, () => {})
}

const chunk = Buffer.allocUnsafe(256 * 1024)

/** Whether an open file holds exactly `bytes`: read in chunks into one reused buffer, no allocation. */
export function holds(fd: number, bytes: Buffer): boolean {
  const size = fs.fstatSync(fd).size
  if (size !== bytes.length) return false
  for (let at = 0; at < size; ) {
    const n = fs.readSync(fd, chunk, 0, Math.min(chunk.length, size - at), at)
    if (n === 0 || chunk.compare(bytes, at, at + n, 0, n) !== 0) return false
    at += n
  }
  return fs.fstatSync(fd).size === size
}

export function readAll(fd: number): Buffer {
  const size = fs.fstatSync(fd).size
  const buffer = Buffer.allocUnsafe(size)
  let read = 0
  while (read < size) {
    const n = fs.readSync(fd, buffer, read, size - read, read)
    if (n === 0) break
    read += n
  }
  return read === size ? buffer : buffer.subarray(0, read)
}
