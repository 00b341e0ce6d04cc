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
  for (const entry of splitNul(status.stdout)) {
    const path = entry.slice(3)
    if (path === '' || isIgnoredPath(path, ignore)) continue
    const kind = await kindOf(join(root, path))
    if (kind === 'file' && !path.includes('\n')) toHash.push(path)
    else dirty.set(path, kind === 'file' ? await hashInNode(join(root, path)) : kind)
  }
  for (const [path, hash] of await hashObjects(root, toHash)) dirty.set(path, hash)
  return {ok: true, snapshot: {root, ...(head === undefined ? {} : {head}), dirty}}
}

async function kindOf(absolute: string): Promise<string> {
  try {
    const stats = await lstat(absolute)
    if (stats.isSymbolicLink()) return `link:${await readlink(absolute)}`
    if (stats.isDirectory()) return 'dir'
    return 'file'
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
