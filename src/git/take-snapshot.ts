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
 * hashed: what HEAD holds is known from HEAD, so the cost is one status (which
 * names HEAD too: `--branch`) and one batched `hash-object`, however big the
 * repository. A run takes one per launch or check, so each git process saved
 * is a fork saved per agent.
 */
export async function takeSnapshot(root: string, ignore: IgnoreOptions = {}): Promise<SnapshotResult> {
  // --no-ahead-behind: the branch's distance from its upstream is not wanted, and can cost a walk of history.
  const status = await runGit(root, ['status', '--porcelain=v2', '--branch', '--no-ahead-behind', '-z', '--untracked-files=all', '--no-renames', '--ignore-submodules=none'])
  if (!status.ok) return {ok: false, reason: gitReason(status, 'git status')}
  const read = readStatusV2(status.stdout)
  // A git that named no HEAD (it always should): ask for it as before.
  const head = read.head === null ? await headSha(root) : read.head
  const dirty = new Map<string, string>()
  const toHash: string[] = []
  const stamps = new Map<string, string>()
  const paths = read.paths.filter((path) => path !== '' && !isIgnoredPath(path, ignore))
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

/**
 * `git status --porcelain=v2 --branch -z`: HEAD (`# branch.oid`, `(initial)` before the first commit:
 * undefined; null when the header is missing) and every path it lists. Entries are NUL-separated and
 * their paths unquoted; a path is whatever follows the entry's fixed fields, spaces included.
 */
export function readStatusV2(stdout: string): {head: string | undefined | null; paths: string[]} {
  let head: string | undefined | null = null
  const paths: string[] = []
  const fields = splitNul(stdout)
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i]!
    if (entry.startsWith('# ')) {
      if (entry.startsWith('# branch.oid ')) {
        const oid = entry.slice('# branch.oid '.length).trim()
        head = oid === '(initial)' ? undefined : oid
      }
      continue
    }
    // 1: ordinary (8 fields, then the path); 2: renamed or copied (9, then the path, then the original
    // path as its own field: never asked for, with --no-renames); u: unmerged (10); ? untracked, ! ignored (1).
    const fixed = {'1': 8, '2': 9, u: 10, '?': 1, '!': 1}[entry[0]!]
    if (fixed === undefined) continue
    let at = 0
    for (let n = 0; n < fixed && at !== -1; n++) at = entry.indexOf(' ', at) + 1 || -1
    if (at !== -1) paths.push(entry.slice(at))
    if (entry[0] === '2') i++
  }
  return {head, paths}
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
