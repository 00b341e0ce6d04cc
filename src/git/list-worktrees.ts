import {realpath} from 'node:fs/promises'
import {resolve} from 'node:path'
import {runGit} from './run-git.js'

export interface WorktreeEntry {
  /** As git recorded it. */
  path: string
  head?: string
  /** `refs/heads/…`, absent when detached. */
  branch?: string
  /** Present when locked (git locks a worktree while `worktree add` runs: a killed add leaves it locked). */
  locked?: string
  /** Present when git knows the folder is gone. */
  prunable?: string
  bare: boolean
}

/** The worktrees git knows of (`git worktree list --porcelain -z`), the main one first. */
export async function listWorktrees(root: string): Promise<WorktreeEntry[]> {
  const result = await runGit(root, ['worktree', 'list', '--porcelain', '-z'])
  if (!result.ok) return []
  const entries: WorktreeEntry[] = []
  let current: WorktreeEntry | undefined
  // Records are NUL-separated lines; an empty line ends a record.
  for (const line of result.stdout.split('\0')) {
    if (line === '') {
      current = undefined
      continue
    }
    const space = line.indexOf(' ')
    const key = space === -1 ? line : line.slice(0, space)
    const value = space === -1 ? '' : line.slice(space + 1)
    if (key === 'worktree') {
      current = {path: value, bare: false}
      entries.push(current)
    } else if (current) {
      if (key === 'HEAD') current.head = value
      else if (key === 'branch') current.branch = value
      else if (key === 'locked') current.locked = value
      else if (key === 'prunable') current.prunable = value
      else if (key === 'bare') current.bare = true
    }
  }
  return entries
}

/** `path` with symlinks resolved when it exists (macOS `/var` is `/private/var`), else just absolute. */
export async function canonicalPath(path: string): Promise<string> {
  try {
    return await realpath(path)
  } catch {
    return resolve(path)
  }
}
