import {readFile} from 'node:fs/promises'
import {resolve} from 'node:path'
import {headSha} from './head-sha.js'
import {gitReason, runGit, splitNul} from './run-git.js'

export type MergeBranchResult =
  | {ok: true; head: string; merged: boolean}
  | {ok: false; reason: string; conflicts: string[]}

/**
 * Merge an agent's branch into the main working tree: the second half of a
 * worktree's merge, and the whole of a remote host's (its result fetched onto
 * the branch). A conflict aborts the merge (the main tree is left as it
 * was) and names the paths. Callers hold the git mutex.
 */
export async function mergeBranch(input: {root: string; branch: string; message: string; identity: string[]}): Promise<MergeBranchResult> {
  const {identity} = input
  const failed = (reason: string, conflicts: string[] = []): MergeBranchResult => ({ok: false, reason, conflicts})
  // A merge of mdplan's own that a killed run left half done would refuse every later one: take it back first.
  if ((await runGit(input.root, ['rev-parse', '--verify', '--quiet', 'MERGE_HEAD'])).ok) {
    const gitDir = (await runGit(input.root, ['rev-parse', '--git-dir'])).stdout.trim()
    const message = await readFile(resolve(input.root, gitDir, 'MERGE_MSG'), 'utf8').catch(() => '')
    if (message.startsWith('Merge mdplan/')) await runGit(input.root, ['merge', '--abort'])
  }
  const contained = await runGit(input.root, ['merge-base', '--is-ancestor', input.branch, 'HEAD'])
  if (contained.ok) return {ok: true, head: (await headSha(input.root)) ?? '', merged: false}

  const merged = await runGit(input.root, [...identity, 'merge', '--no-edit', '--no-verify', '-m', `Merge ${input.branch}: ${input.message}`, input.branch])
  if (!merged.ok) {
    const unmerged = await runGit(input.root, ['diff', '--name-only', '-z', '--diff-filter=U'])
    const conflicts = [...new Set(splitNul(unmerged.stdout))].sort()
    const inMerge = (await runGit(input.root, ['rev-parse', '--verify', '--quiet', 'MERGE_HEAD'])).ok
    if (inMerge) await runGit(input.root, ['merge', '--abort'])
    if (conflicts.length > 0) return failed(`merge conflict in ${conflicts.join(', ')}`, conflicts)
    const blocked = blockingPaths(merged.stderr)
    if (blocked.length > 0) return failed(`git merge: changes in the main working tree are in the way: ${blocked.join(', ')}`)
    return failed(gitReason(merged, 'git merge'))
  }
  return {ok: true, head: (await headSha(input.root)) ?? '', merged: true}
}

/**
 * Git lists the files in the way (staged changes, or local and untracked files
 * the merge would overwrite) on indented lines after the error line; the
 * first line alone names none of them.
 */
function blockingPaths(stderr: string): string[] {
  const paths: string[] = []
  let listing = false
  for (const line of stderr.split('\n')) {
    if (/would be overwritten by merge:\s*$/.test(line)) listing = true
    else if (listing && /^\s+\S/.test(line)) paths.push(line.trim())
    else listing = false
  }
  return [...new Set(paths)]
}
