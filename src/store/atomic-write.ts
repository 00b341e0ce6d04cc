import fs from 'node:fs'
import path from 'node:path'

let counter = 0

export interface AtomicWriteOptions {
  /** File mode to give the new file (the old file's, to keep it). */
  mode?: number
  /** Called after the data is on disk, just before the rename: return false to give up (the temp file is removed). */
  beforeRename?: () => boolean
  /** Called right after the rename, still inside `exclusive`, with the new file's inode and mtime as written. */
  afterRename?: (written: fs.BigIntStats) => void
  /**
   * Called right after the rename (after `afterRename`, still inside `exclusive`) with the path of a hard
   * link to the file the rename replaced, taken just before it (after `beforeRename`): a save renamed
   * over the file after the last check is still there to read. The link is removed when this returns
   * (open it to keep the file). Undefined when no link could be made (a file system without hard links).
   */
  replaced?: (held: string | undefined) => void
  /** Runs the check and the rename, as one step other writers respect (a lock). */
  exclusive?: (checkAndRename: () => boolean) => boolean
}

/**
 * Replace `file` with `data` so that a crash at any instant leaves either the
 * old or the new file: a temp file in the same folder, written, fsynced,
 * renamed over it. Synchronous on purpose: no signal handler, timer or other
 * write can run between the steps, and every exit path that runs JavaScript
 * goes through the `finally` that removes the temp file (SIGKILL leaves it to
 * `cleanTempFiles` on the next open: the hard link `replaced` asks for is a
 * temp name too). Returns false when `beforeRename` gave up.
 */
export function atomicWrite(file: string, data: Uint8Array, options: AtomicWriteOptions = {}): boolean {
  const temp = tempPath(file)
  let renamed = false
  let fd: number | undefined
  try {
    fd = fs.openSync(temp, 'wx', 0o600)
    for (let written = 0; written < data.length; ) written += fs.writeSync(fd, data, written, data.length - written)
    if (options.mode !== undefined) fs.fchmodSync(fd, options.mode)
    fs.fsyncSync(fd)
    const written = fs.fstatSync(fd, {bigint: true})
    fs.closeSync(fd)
    fd = undefined
    const checkAndRename = (): boolean => {
      if (options.beforeRename && !options.beforeRename()) return false
      const held = options.replaced ? hold(file) : undefined
      try {
        // Nothing between the link and the rename: a save renamed over the file in that instant is lost.
        fs.renameSync(temp, file)
        renamed = true
        options.afterRename?.(written)
        options.replaced?.(held)
      } finally {
        if (held !== undefined) unlink(held)
      }
      return true
    }
    return options.exclusive ? options.exclusive(checkAndRename) : checkAndRename()
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
    if (!renamed) fs.rmSync(temp, {force: true})
  }
}

/**
 * A second name for the file at `file` (a temp name: `cleanTempFiles` removes one a killed writer left,
 * git snapshots skip it). Undefined where there is no file or hard links cannot be made (FAT, some
 * network file systems, a file of another user under `fs.protected_hardlinks`): the write goes on without.
 */
function hold(file: string): string | undefined {
  const link = tempPath(file)
  try {
    fs.linkSync(file, link)
    return link
  } catch {
    return undefined
  }
}

function unlink(link: string): void {
  try {
    fs.unlinkSync(link)
  } catch {
    // Gone already: nothing of ours is left.
  }
}

/** `.plan.md.<pid>.<n>.mdplan-tmp` beside the plan: hidden, and owned by a pid so leftovers can be told apart. */
export function tempPath(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${++counter}.mdplan-tmp`)
}
