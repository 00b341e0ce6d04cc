import {createHash} from 'node:crypto'
import {lstat, readFile, readlink} from 'node:fs/promises'
import {join} from 'node:path'
import type {GitFailure} from './git-failure.js'
import {headSha} from './head-sha.js'
import {isIgnoredPath, type IgnoreOptions} from './ignored-path.js'
import {gitReason, runGit, splitNul} from './run-git.js'

/** The state of a working tree at one moment: enough to tell later what changed since. */
export interface Snapshot {
  /** The working tree's top folder the snapshot was taken in. */
  root: string
  /** HEAD then, or undefined before the first commit. */
  head?: string
  /** Every dirty or untracked path (repository-relative) → a fingerprint of its content (`deleted`, `dir`, `link:…`, or a blob id). */
  dirty: Map<string, string>
}

export type SnapshotResult = {ok: true; snapshot: Snapshot} | GitFailure

/**
 * Take a snapshot of `root` (the top of a working tree). Clean files are not
 * hashed: what HEAD holds is known from HEAD, so the cost is one status, one
 * batched `hash-object` and a rev-parse, however big the repository.
 */
export async function takeSnapshot(root: string, ignore: IgnoreOptions = {}): Promise<SnapshotResult> {
  const status = await runGit(root, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--ignore-submodules=none'])
  if (!status.ok) return {ok: false, reason: gitReason(status, 'git status')}
  const head = await headSha(root)
  const dirty = new Map<string, string>()
  const toHash: string[] = []
  const stamps = new Map<string, string>()
  const paths = splitNul(status.stdout).map((entry) => entry.slice(3)).filter((path) => path !== '' && !isIgnoredPath(path, ignore))
  // In a repository with thousands of untracked files, one stat each, many at once; and a file
  // unchanged since an earlier snapshot (same inode, size, mtime and ctime) keeps its hash.
  for (let at = 0; at < paths.length; at += 256) {
    const batch = paths.slice(at, at + 256)
    const kinds = await Promise.all(batch.map((path) => kindOf(join(root, path))))
    for (const [i, path] of batch.entries()) {
      const kind = kinds[i]!
      if (typeof kind !== 'string') {
        const known = hashCache.get(join(root, path))
        if (known && known.stamp === kind.stamp) dirty.set(path, known.hash)
        else if (!path.includes('\n')) {
          toHash.push(path)
          stamps.set(path, kind.stamp)
        } else dirty.set(path, await hashInNode(join(root, path)))
      } else dirty.set(path, kind)
    }
  }
  for (const [path, hash] of await hashObjects(root, toHash)) {
    dirty.set(path, hash)
    const stamp = stamps.get(path)
    if (stamp) hashCache.set(join(root, path), {stamp, hash})
  }
  return {ok: true, snapshot: {root, ...(head === undefined ? {} : {head}), dirty}}
}

/** Hashes of files by absolute path, valid while the file's stat stamp is unchanged. */
const hashCache = new Map<string, {stamp: string; hash: string}>()

/** A fingerprint for what is not a regular file; for a file, its stat stamp. */
async function kindOf(absolute: string): Promise<string | {stamp: string}> {
  try {
    const stats = await lstat(absolute, {bigint: true})
    if (stats.isSymbolicLink()) return `link:${await readlink(absolute)}`
    if (stats.isDirectory()) return 'dir'
    return {stamp: `${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`}
  } catch {
    return 'deleted'
  }
}

async function hashObjects(root: string, paths: string[]): Promise<Map<string, string>> {
  const hashes = new Map<string, string>()
  if (paths.length === 0) return hashes
  const result = await runGit(root, ['hash-object', '--no-filters', '--stdin-paths'], {input: `${paths.join('\n')}\n`})
  const lines = result.stdout.split('\n').filter((line) => line !== '')
  if (result.ok && lines.length === paths.length) {
    paths.forEach((path, i) => hashes.set(path, lines[i]!))
    return hashes
  }
  // A file can vanish between status and hash-object (an agent is working): hash one by one.
  for (const path of paths) hashes.set(path, await hashInNode(join(root, path)))
  return hashes
}

// The same id `git hash-object --no-filters` prints (in a SHA-1 repository), so both ways compare equal.
async function hashInNode(absolute: string): Promise<string> {
  try {
    const content = await readFile(absolute)
    return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex')
  } catch {
    return 'deleted'
  }
}
