import type {GitFailure} from './git-failure.js'
import type {IgnoreOptions} from './ignored-path.js'
import {isIgnoredPath} from './ignored-path.js'
import {gitReason, runGit, splitNul} from './run-git.js'
import {takeSnapshot, type Snapshot} from './take-snapshot.js'

export type ChangedSinceResult = {ok: true; paths: string[]; after: Snapshot} | GitFailure

/**
 * The paths that changed in `before.root` since `before` was taken: files
 * whose content differs now, that became dirty or clean, plus every path
 * touched by commits between the two HEADs (an agent may commit its own work).
 * `after` is the new snapshot, reusable as the start of the next window.
 */
export async function changedSince(
  before: Snapshot,
  ignore: IgnoreOptions = {},
  /** A snapshot of now (one shared by checks that finish together), taken after the agent ended. */
  take: () => ReturnType<typeof takeSnapshot> = () => takeSnapshot(before.root, ignore)
): Promise<ChangedSinceResult> {
  const now = await take()
  if (!now.ok) return now
  const after = now.snapshot
  const paths = new Set<string>()
  for (const path of new Set([...before.dirty.keys(), ...after.dirty.keys()])) {
    if (before.dirty.get(path) !== after.dirty.get(path)) paths.add(path)
  }
  if (after.head !== undefined && before.head !== after.head) {
    const from = before.head ?? (await emptyTree(before.root))
    const diff = await runGit(before.root, ['diff', '--name-only', '-z', '--no-renames', from, after.head, '--'])
    if (!diff.ok) return {ok: false, reason: gitReason(diff, 'git diff')}
    for (const path of splitNul(diff.stdout)) if (!isIgnoredPath(path, ignore)) paths.add(path)
  }
  return {ok: true, paths: [...paths].sort(), after}
}

// The empty tree's id depends on the repository's hash algorithm, so ask git.
async function emptyTree(root: string): Promise<string> {
  const result = await runGit(root, ['hash-object', '-t', 'tree', '--stdin'], {input: ''})
  return result.stdout.trim() || '4b825dc642cb6eb9a060e54bf8d69288fbee4904'
}
