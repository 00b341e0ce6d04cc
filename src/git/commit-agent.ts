import {lstat} from 'node:fs/promises'
import {join} from 'node:path'
import type {GitFailure} from './git-failure.js'
import {acrossProcesses, gitMutex, type Mutex} from './git-mutex.js'
import {headSha} from './head-sha.js'
import {identityArgs} from './identity-args.js'
import {gitReason, runGit, splitNul} from './run-git.js'
import {withCommitMarker, type CommitMarker} from './with-commit-marker.js'

export interface CommitAgentInput {
  /** The working tree's top folder. */
  root: string
  /** Exactly the files to commit, repository-relative: the agent's `own` changes from `attributeChanges`. */
  paths: readonly string[]
  /** `commitMessage(title, agent)`. */
  message: string
  mutex?: Mutex
}

/**
 * `commit` is the new commit's full sha, or undefined when the paths held nothing to commit;
 * `cleared`: stale git locks a killed run's commit left, removed first (see `withCommitMarker`).
 */
export type CommitAgentResult = ({ok: true; commit?: string} | GitFailure) & {cleared?: string[]}

/**
 * `commit: true`: commit exactly the files an agent changed, deletions
 * included, and nothing else — other agents' work and whatever the person had
 * staged stay as they were (`git commit --only -- <paths>`).
 */
export async function commitAgent(input: CommitAgentInput): Promise<CommitAgentResult> {
  return (input.mutex ?? gitMutex).run(() =>
    acrossProcesses(input.root, async () => {
      const {result, cleared} = await withCommitMarker(input.root, (marker) => commit(input, marker))
      return cleared.length > 0 ? {...result, cleared} : result
    })
  )
}

async function commit(input: CommitAgentInput, marker: CommitMarker): Promise<CommitAgentResult> {
  const {paths, toAdd} = await committable(input.root, [...new Set(input.paths)])
  if (paths.length === 0) return {ok: true}
  // `add -A` with pathspecs stages deletions of those paths too.
  if (toAdd.length > 0) {
    const added = await runGit(input.root, ['add', '-A', '--', ...toAdd], {onStart: marker.onStart})
    if (!added.ok) return {ok: false, reason: gitReason(added, 'git add')}
  }
  const head = await headSha(input.root)
  if (head) {
    const staged = await runGit(input.root, ['diff', '--cached', '--name-only', '-z', head, '--', ...paths])
    if (!staged.ok) return {ok: false, reason: gitReason(staged, 'git diff')}
    if (splitNul(staged.stdout).length === 0) return {ok: true}
  }
  const identity = await identityArgs(input.root)
  const committed = await runGit(input.root, [...identity, 'commit', '--quiet', '--only', '-m', input.message, '--', ...paths], {onStart: marker.onStart})
  if (!committed.ok) {
    if (/nothing (added )?to commit|no changes added/i.test(committed.stdout + committed.stderr)) return {ok: true}
    return {ok: false, reason: gitReason(committed, 'git commit')}
  }
  const sha = await headSha(input.root)
  return sha ? {ok: true, commit: sha} : {ok: false, reason: 'git commit: no HEAD after committing'}
}

/**
 * A path that is neither on disk nor known to git (made and removed during the
 * run) would fail the whole pathspec, and so would `git add` of a path an agent
 * already `git rm`-ed (it is only in HEAD then, its deletion already staged).
 */
async function committable(root: string, paths: string[]): Promise<{paths: string[]; toAdd: string[]}> {
  if (paths.length === 0) return {paths: [], toAdd: []}
  const cached = new Set(splitNul((await runGit(root, ['ls-files', '-z', '--cached', '--', ...paths])).stdout))
  const inHead = await runGit(root, ['ls-tree', '-r', '--name-only', '-z', 'HEAD', '--', ...paths])
  const committed = new Set(inHead.ok ? splitNul(inHead.stdout) : [])
  const result = {paths: [] as string[], toAdd: [] as string[]}
  for (const path of paths) {
    const exists = await lstat(join(root, path)).then(() => true, () => false)
    if (exists || cached.has(path)) result.toAdd.push(path)
    if (exists || cached.has(path) || committed.has(path)) result.paths.push(path)
  }
  return result
}
