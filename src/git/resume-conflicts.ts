import type {GitFailure} from './git-failure.js'
import {isIgnoredPath, type IgnoreOptions} from './ignored-path.js'
import {pathMatches} from './path-matches.js'
import {gitReason, runGit, splitNul} from './run-git.js'

export interface ResumeConflictsInput {
  /** The working tree the agent runs in (the repository root, or its worktree). */
  root: string
  /** The agent about to be resumed or relaunched. */
  agent: string
  /** The `base:` note of its row (12 hex, or a full sha). */
  base: string
  /** Declared path → owners (`ownershipMap`). */
  owners: ReadonlyMap<string, readonly string[]>
  ignore?: IgnoreOptions
}

export type ResumeConflicts =
  | {
      ok: true
      /** The base, resolved to a full sha. */
      base: string
      /** Files the agent declares that commits since its base changed. */
      committed: string[]
      /** Files the agent declares that are dirty or untracked now. */
      uncommitted: string[]
    }
  | GitFailure

/**
 * Before resuming or relaunching an agent: which of the files it declares
 * changed since its base commit (`git diff BASE..HEAD` plus uncommitted
 * changes). Someone else may have done its work, or undone it; the executor
 * says so before going on.
 */
export async function resumeConflicts(input: ResumeConflictsInput): Promise<ResumeConflicts> {
  const resolved = await runGit(input.root, ['rev-parse', '--verify', '--quiet', `${input.base}^{commit}`])
  if (!resolved.ok) return {ok: false, reason: `base ${input.base} is not a commit in this repository`}
  const base = resolved.stdout.trim()
  const declared = [...input.owners].filter(([, ids]) => ids.includes(input.agent)).map(([path]) => path)
  const mine = (path: string) => !isIgnoredPath(path, input.ignore) && declared.some((pattern) => pathMatches(pattern, path))

  const diff = await runGit(input.root, ['diff', '--name-only', '-z', '--no-renames', base, 'HEAD', '--'])
  if (!diff.ok) return {ok: false, reason: gitReason(diff, 'git diff')}
  const status = await runGit(input.root, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames'])
  if (!status.ok) return {ok: false, reason: gitReason(status, 'git status')}

  const committed = splitNul(diff.stdout).filter(mine).sort()
  const uncommitted = [...new Set(splitNul(status.stdout).map((entry) => entry.slice(3)))].filter(mine).sort()
  return {ok: true, base, committed, uncommitted}
}

/** One line for the executor to print, or undefined when nothing the agent declares changed. */
export function formatResumeConflicts(agent: string, conflicts: ResumeConflicts, max = 5): string | undefined {
  if (!conflicts.ok) return `${agent}: cannot check changes since its base: ${conflicts.reason}`
  const items = [
    ...conflicts.committed.map((path) => `${path} (${conflicts.uncommitted.includes(path) ? 'committed, and changed again' : 'committed'})`),
    ...conflicts.uncommitted.filter((path) => !conflicts.committed.includes(path)).map((path) => `${path} (uncommitted)`)
  ]
  if (items.length === 0) return undefined
  const shown = items.slice(0, max)
  const more = items.length - shown.length
  return `${agent}: since its base ${conflicts.base.slice(0, 12)}, files it declares changed: ${shown.join(', ')}${more > 0 ? ` +${more} more` : ''}`
}
