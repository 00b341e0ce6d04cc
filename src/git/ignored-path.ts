import {normalizePath} from './path-matches.js'

export interface IgnoreOptions {
  /** The plan file, relative to the repository root: mdplan rewrites it, agents do not. */
  planFile?: string
  /** More repository-relative paths (files or folders) that are mdplan's own. */
  extra?: readonly string[]
}

/**
 * Whether a changed path is mdplan's own doing and must not count against an
 * agent: the plan, its lock and temp files beside it, lock folders, any `.mdplan/`.
 */
export function isIgnoredPath(path: string, options: IgnoreOptions = {}): boolean {
  const file = normalizePath(path)
  // `.mdplan/` sits in the folder mdplan runs in, which may be below the repository root.
  if (file.split('/').includes('.mdplan')) return true
  // Lock folders (proper-lockfile's `x.lock/`) only: `yarn.lock` or `Cargo.lock` are real work.
  if (file.split('/').slice(0, -1).some((segment) => segment.endsWith('.lock'))) return true
  const plan = options.planFile === undefined ? '' : normalizePath(options.planFile)
  // The store's temp files (`.<plan>.<pid>.<n>.mdplan-tmp`), a snapshot may catch mid-write.
  if (file.endsWith('.mdplan-tmp')) return true
  // Any plan's write mutex (`<plan>.write-lock`), held a moment per write: another plan's run in this repository.
  if (file.split('/').some((segment) => segment.endsWith('.write-lock'))) return true
  // The plan itself and what sits beside it under its name (`<plan>.lock`).
  if (plan !== '' && (file === plan || file.startsWith(`${plan}.`))) return true
  for (const extra of options.extra ?? []) {
    const other = normalizePath(extra).replace(/\/$/, '')
    if (other !== '' && (file === other || file.startsWith(`${other}/`))) return true
  }
  return false
}
