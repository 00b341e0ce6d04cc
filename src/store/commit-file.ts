import fs from 'node:fs'
import {atomicWrite} from './atomic-write.js'
import {type FileStamp, ownStamp, sameStamp} from './file-stamp.js'
import {foldLateEdit} from './fold-late-edit.js'
import {lateEdits} from './late-edits.js'
import type {Outside} from './merge-outside.js'
import type {Conflict, HumanEdit} from './merge-state.js'
import {holds, quietMs, readAll, release, settle} from './open-file.js'
import {openSave, readSave} from './replaced-save.js'
import type {StateLayout} from './state-layout.js'
import type {TableState} from './table-state.js'
import {withWriteMutex} from './write-mutex.js'

export interface Produced {
  /** The new bytes, BOM included. */
  data: Buffer
  /** `data` decoded without BOM, when at hand. */
  text?: string
  /** Where the state section is in `data`, when the write spliced bytes. */
  sectionBytes?: {start: number; end: number}
  /** The state section in `data` (its text, or its bytes), when this wrote the table. */
  section?: string | Uint8Array
  /** The text around the section, when it may differ from the last write's. */
  outside?: Outside
  layout: StateLayout | undefined
  /** The table as written, when this wrote the table: the next merge's base. */
  state?: TableState
  humanEdits: HumanEdit[]
  conflicts: Conflict[]
  /** Whether the table in `data` is exactly the base (no hand edit waits to be merged). */
  clean: boolean
  /** What the run should tell the person once this is on disk; `once`: a key, told only the first time. */
  notices?: Array<{text: string; once?: string}>
  /** Called once the data is on disk. */
  committed?: () => void
}

export interface Committed {
  data: Buffer
  result: Produced
}

/** What a store keeps about the files it replaced, across writes. */
export interface CommitIo {
  /** Files our writes replaced (the one we read; a save renamed over it after our check), still open, with their bytes as last read. */
  displaced: Array<{fd: number; bytes: Buffer}>
  /** Edits found in files earlier writes replaced, kept until a write that includes them succeeds. */
  late: Array<{from: Buffer; to: Buffer}>
  /**
   * A save renamed over the plan between our check and our rename (which replaced it), with the bytes
   * we had read (`from`: what it most likely started from), kept until a write that includes it
   * succeeds: merged as the file's content, as a save renamed over our write is.
   */
  replaced?: {from: Buffer; save: Buffer} | undefined
  /** Recent versions on disk, newest first: where a late in-place edit may start from. */
  ancestry: Buffer[]
  /** The plan's inode, size and times right after our last rename (what `bytes()` holds then). */
  written?: FileStamp | undefined
}

export interface CommitInput {
  /** Where the bytes go (a symlink's target). */
  target: string
  /** What messages call the plan. */
  file: string
  giveUpAfterMs: number
  /** The bytes mdplan last read or wrote. */
  bytes: () => Buffer
  io: CommitIo
  /**
   * The new bytes from what is on disk (`seen`; `same`: the bytes mdplan last read or wrote). `from`: when
   * `seen` is a save our rename replaced, the file it replaced (what the save most likely started from).
   */
  produce: (seen: Buffer, same: boolean, from?: Buffer) => Produced
  adopt: (done: Committed) => void
}

const ancestrySize = 12

/**
 * Read the file, let `produce` compute the new bytes, write them atomically
 * (or not at all when they are the file's). Someone else may write the file at any time:
 * - before our read: the bytes differ from what we last wrote, `produce` merges them;
 * - a rename between our read and our check just before our rename: the inode at the path is no longer the
 *   one we read; start over;
 * - a rename between that check and our rename: our rename replaced their file, but a hard link taken
 *   right before it still holds it: write again at once, with `produce` merging it as the file's
 *   content (as if it had landed just after our rename, over our write), and keep it open as we keep
 *   the file we read. A save over our write meanwhile is merged after it, the same way. Only a rename
 *   in the instant between that link and our rename (two system calls in a row) is lost: Node has no
 *   `renameat2(RENAME_EXCHANGE)`, the one call that replaces a file and keeps what it replaced;
 * - in place, into the file we read, before or after our rename: that file is now replaced, but we
 *   still hold it open, so we see what they wrote (right after the rename, or at the next write) and
 *   fold their change into the current file with a three-way text merge, then merge again.
 */
export async function commitFile(input: CommitInput): Promise<{bytes: number; humanEdits: HumanEdit[]; conflicts: Conflict[]}> {
  const {io, target} = input
  io.late.push(...lateEdits(io))
  const humanEdits: HumanEdit[] = []
  const conflicts: Conflict[] = []
  let bytes = -1
  const deadline = Date.now() + input.giveUpAfterMs
  for (let attempt = 0; ; attempt++) {
    const fd = fs.openSync(target, 'r')
    let keep = false
    try {
      const mine = input.bytes()
      const disk = readDisk(io, fd, mine)
      const merge = toMerge(io, disk, mine)
      const {seen, next} = merge
      const same = seen === mine || seen.equals(mine)
      if (same && bytes !== -1) return {bytes, humanEdits, conflicts}
      const result = produceOrPutBack(input, fd, merge, same)
      const {data} = result
      if (data.equals(disk)) {
        humanEdits.push(...result.humanEdits)
        conflicts.push(...result.conflicts)
        // Nothing to write: the file already says it all (a no-op leaves even its mtime alone).
        input.adopt({data: disk, result})
        io.late = []
        io.replaced = undefined
        bytes = Math.max(bytes, 0)
        return {bytes, humanEdits, conflicts}
      }
      const {written, save} = renameOver(input, fd, data)
      if (!written) {
        // Someone renamed over the plan meanwhile: let them finish (and the event loop breathe), then start over.
        if (Date.now() > deadline) throw new Error(`${input.file}: the file kept changing while mdplan tried to write it (for ${Math.round(input.giveUpAfterMs / 1000)} s, ${attempt + 1} attempts)`)
        await new Promise((resolve) => setTimeout(resolve, Math.min(2 ** attempt, 50)))
        continue
      }
      io.ancestry = [...new Set([data, seen, disk, ...io.late.map((late) => late.to), ...io.ancestry])].slice(0, ancestrySize)
      io.late = []
      io.replaced = next
      if (save !== undefined) takeReplacedSave(io, save, disk)
      input.adopt({data, result})
      humanEdits.push(...result.humanEdits)
      conflicts.push(...result.conflicts)
      bytes = data.length
      // Keep the replaced file open until the next write: an in-place writer
      // that opened it before our rename may still write into it.
      const read = watch(io, fd, disk)
      keep = true
      const late = writtenInPlace(fd, disk, read)
      if (late.length > 0 || io.replaced) {
        io.late = late
        continue
      }
      return {bytes, humanEdits, conflicts}
    } finally {
      if (!keep) fs.closeSync(fd)
    }
  }
}

/** A save our rename replaced (`save`), and the bytes we had read then (`from`: what it most likely started from). */
type Replaced = {from: Buffer; save: Buffer}

/** The file's bytes (`fd`, open at the path): `mine` when it is untouched since our rename or holds them, else read. */
function readDisk(io: CommitIo, fd: number, mine: Buffer): Buffer {
  let disk = mine
  // Untouched since our rename (same inode, size and times): no need to read it. A write in place
  // that left all four as they were (within one tick of a coarse clock) is still caught: the rename
  // below replaces this inode, and the check after it reads the file we replaced.
  if (!sameStamp(fd, io.written, mine.length) && !holds(fd, disk)) {
    // A file written moments ago may be half written (in place): wait for it to settle. One
    // untouched for a while is complete, and merging it must not wait (saves come every 0.1 s).
    const stat = fs.fstatSync(fd)
    disk = stat.size > 0 && Date.now() - stat.mtimeMs > quietMs ? readAll(fd) : settle(fd, readAll(fd))
  }
  return disk
}

/**
 * What `produce` merges (`seen`): the file's bytes (`disk`), or the save our last rename replaced
 * (`replaced`), with the late edits folded in; and `next`, a save over our write since, merged after it.
 */
function toMerge(io: CommitIo, disk: Buffer, mine: Buffer): {seen: Buffer; replaced: Replaced | undefined; next: Replaced | undefined} {
  let seen = disk
  // A save our rename replaced: merged as what the file would hold but for that rename. One saved over
  // our write since (`disk`) waits: it is merged next, as a save this write replaces, from our write.
  const replaced = io.replaced
  const next = replaced && disk !== mine && !disk.equals(mine) ? {from: mine, save: disk} : undefined
  if (replaced) seen = replaced.save
  for (const late of io.late) seen = foldLateEdit(io.ancestry, late, seen)
  return {seen, replaced, next}
}

/** `produce` the new bytes; when it cannot, a save our rename replaced is put back or kept as a late edit. */
function produceOrPutBack(input: CommitInput, fd: number, {seen, replaced, next}: ReturnType<typeof toMerge>, same: boolean): Produced {
  const {io} = input
  try {
    return input.produce(seen, same, replaced?.from)
  } catch (error) {
    // A save our rename replaced that cannot be merged (a table damaged by hand): the person must see it
    // to repair it. Saved over since: the newer save is what they see.
    if (replaced && !next) putBack(input, fd, replaced)
    else if (replaced) {
      io.late = [{from: replaced.from, to: replaced.save}, ...io.late]
      io.replaced = undefined
    }
    throw error
  }
}

/**
 * Write `data` and rename it over the plan, if the path still holds the file we read (`fd`): `written`
 * false when it does not; `save`, open, a save renamed over the plan after that check, which our rename
 * then replaced.
 */
function renameOver(input: CommitInput, fd: number, data: Buffer): {written: boolean; save: number | undefined} {
  const {io, target} = input
  const stat = fs.fstatSync(fd)
  // A save renamed over the plan after the check below, which our rename then replaced: still open here.
  let save: number | undefined
  const written = atomicWrite(target, data, {
    mode: stat.mode & 0o7777,
    beforeRename: () => fs.statSync(target).ino === stat.ino,
    afterRename: (mine) => (io.written = ownStamp(fs.statSync(target, {bigint: true}), mine)),
    replaced: (held) => (save = held === undefined ? undefined : openSave(held, stat.ino)),
    exclusive: (checkAndRename) => withWriteMutex(target, checkAndRename)
  })
  return {written, save}
}

/**
 * A save (`save`, open) renamed over the plan between our check and our rename, which replaced it: merge
 * it now (over the save we read, when it was one: that save is the file it replaced, its author's to keep).
 */
function takeReplacedSave(io: CommitIo, save: number, disk: Buffer): void {
  const held = watch(io, save, disk)
  const saved = readSave(save)
  // Empty: a writer that truncated it has not written yet (the next write looks again).
  if (saved.length > 0) held.bytes = saved
  if (saved.length > 0 && !saved.equals(disk)) io.replaced = {from: disk, save: saved}
}

/** An edit written in place into the file we just replaced (`fd`, watched as `read`), to fold in now; or none. */
function writtenInPlace(fd: number, disk: Buffer, read: {fd: number; bytes: Buffer}): Array<{from: Buffer; to: Buffer}> {
  const late: Array<{from: Buffer; to: Buffer}> = []
  if (!holds(fd, disk)) {
    const after = readAll(fd)
    if (after.length > 0) {
      // Written in place into the file we just replaced: fold it in now (and keep watching it:
      // another editor may have it open too).
      read.bytes = settle(fd, after)
      late.push({from: disk, to: read.bytes})
    }
  }
  return late
}

/**
 * Put a save our rename replaced back in place of that write (`fd`, still the file), as if our rename
 * had lost the race to it; saved over since, it waits to be folded into the file as a late edit.
 */
function putBack(input: CommitInput, fd: number, replaced: {from: Buffer; save: Buffer}): void {
  const {io, target} = input
  const stat = fs.fstatSync(fd)
  let save: number | undefined
  const written = atomicWrite(target, replaced.save, {
    mode: stat.mode & 0o7777,
    beforeRename: () => fs.statSync(target).ino === stat.ino,
    replaced: (held) => (save = held === undefined ? undefined : openSave(held, stat.ino)),
    exclusive: (checkAndRename) => withWriteMutex(target, checkAndRename)
  })
  io.replaced = undefined
  io.written = undefined
  if (!written) io.late.unshift({from: replaced.from, to: replaced.save})
  // Another save renamed over our write just before this rename, which replaced it: folded in at the next write.
  if (save !== undefined) {
    const saved = readSave(save)
    release(save)
    if (saved.length > 0) io.late.unshift({from: replaced.save, to: saved})
  }
}

/** Watch a replaced file for in-place writes until the next write (`lateEdits`): `bytes`, what it holds now. */
function watch(io: CommitIo, fd: number, bytes: Buffer): {fd: number; bytes: Buffer} {
  const replaced = {fd, bytes}
  io.displaced.push(replaced)
  return replaced
}
