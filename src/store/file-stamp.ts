import fs from 'node:fs'

/** A file's inode, size and times: whether it is still the one mdplan renamed into place, untouched. */
export interface FileStamp {
  ino: bigint
  size: bigint
  mtimeNs: bigint
  ctimeNs: bigint
}

function stampOf(stat: fs.BigIntStats): FileStamp {
  return {ino: stat.ino, size: stat.size, mtimeNs: stat.mtimeNs, ctimeNs: stat.ctimeNs}
}

/**
 * The stamp of the file at the path, if it is still the one we wrote: another save between our rename
 * and this stat (a rename onto the path, or an in-place write that moved its mtime) must not be taken
 * for ours, or the next write would skip reading it and overwrite it.
 */
export function ownStamp(now: fs.BigIntStats, mine: fs.BigIntStats): FileStamp | undefined {
  return now.ino === mine.ino && now.mtimeNs === mine.mtimeNs && now.size === mine.size ? stampOf(now) : undefined
}

/** Whether the open file `fd` still bears `stamp` (and holds `size` bytes). */
export function sameStamp(fd: number, stamp: FileStamp | undefined, size: number): boolean {
  if (!stamp || stamp.size !== BigInt(size)) return false
  const now = fs.fstatSync(fd, {bigint: true})
  return now.ino === stamp.ino && now.size === stamp.size && now.mtimeNs === stamp.mtimeNs && now.ctimeNs === stamp.ctimeNs
}
