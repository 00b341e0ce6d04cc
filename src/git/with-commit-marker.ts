import {appendFileSync, rmSync} from 'node:fs'
import {readFile, rm, stat} from 'node:fs/promises'
import {join, relative} from 'node:path'
import {isAlive} from '../store/is-alive.js'
import {runGit} from './run-git.js'

/** What a commit wrapped by `withCommitMarker` is given: report each git process it starts. */
export interface CommitMarker {
  onStart(pid: number): void
}

/** The marker file, in the repository's git folder: one pid a line, mdplan's first, then each git it ran. */
export const markerName = 'mdplan-commit.pid'

/**
 * Run `work` (mdplan's own commit or merge) with a marker naming mdplan and
 * every git process it starts, removed when the work ends. A run killed with
 * its git (`kill -9` of the process group, a crash) leaves the marker, and git
 * leaves `index.lock` (or `HEAD.lock`, the branch's lock): before the next
 * commit, locks are removed only when such a marker says mdplan made them and
 * none of its processes lives any more. A lock anyone else holds or left is
 * never touched (git's own retry and message apply), nor is a lock made at
 * another moment than mdplan's last git start. `cleared` names the
 * locks removed, for a warning.
 */
export async function withCommitMarker<T>(root: string, work: (marker: CommitMarker) => Promise<T>): Promise<{result: T; cleared: string[]}> {
  const dirs = await gitDirs(root)
  if (!dirs) return {result: await work({onStart() {}}), cleared: []}
  const marker = join(dirs.gitDir, markerName)
  const cleared = await clearStaleLocks(root, marker, dirs)
  const note = (pid: number): void => {
    // At once, in the spawn's own tick: a kill right after the spawn must find the live git named.
    // A marker that could not name every git must not exist: without one, no lock is ever cleared.
    try {
      appendFileSync(marker, `${pid}\n`)
    } catch {
      try {
        rmSync(marker, {force: true})
      } catch {}
    }
  }
  note(process.pid)
  try {
    return {result: await work({onStart: note}), cleared}
  } finally {
    await rm(marker, {force: true})
  }
}

/** The marker is appended as each git starts; git makes its lock within moments of starting. */
const sameMomentMs = 2000

async function gitDirs(root: string): Promise<{gitDir: string; commonDir: string} | undefined> {
  const result = await runGit(root, ['rev-parse', '--path-format=absolute', '--git-dir', '--git-common-dir'])
  const [gitDir, commonDir] = result.stdout.split('\n')
  return result.ok && gitDir && commonDir ? {gitDir, commonDir} : undefined
}

async function clearStaleLocks(root: string, marker: string, dirs: {gitDir: string; commonDir: string}): Promise<string[]> {
  const text = await readFile(marker, 'utf8').catch(() => undefined)
  const written = await stat(marker).then((stats) => stats.mtimeMs, () => undefined)
  if (text === undefined || written === undefined) return []
  const pids = text.split('\n').filter((line) => /^\d+$/.test(line)).map(Number)
  // One of them still runs (a killed run's git finishing a long pre-commit hook): its locks are live.
  if (pids.some((pid) => pid !== process.pid && isAlive(pid))) return []
  const head = await readFile(join(dirs.gitDir, 'HEAD'), 'utf8').catch(() => '')
  const branch = /^ref: (refs\/\S+)/.exec(head)?.[1]
  const locks = [join(dirs.gitDir, 'index.lock'), join(dirs.gitDir, 'HEAD.lock'), ...(branch ? [join(dirs.commonDir, `${branch}.lock`)] : [])]
  const cleared: string[] = []
  for (const lock of locks) {
    const made = await stat(lock).then((stats) => stats.mtimeMs, () => undefined)
    // A lock made long before or after mdplan's last git started is someone else's: a person's git may hold it.
    if (made === undefined || Math.abs(made - written) > sameMomentMs) continue
    await rm(lock, {force: true})
    const shown = relative(root, lock)
    cleared.push(shown.startsWith('..') ? lock : shown)
  }
  await rm(marker, {force: true})
  return cleared
}
