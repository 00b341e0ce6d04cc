import {lstat} from 'node:fs/promises'
import {join} from 'node:path'
import type {GitFailure} from './git-failure.js'
import {gitMutex, type Mutex} from './git-mutex.js'
import {headSha} from './head-sha.js'
import {identityArgs} from './identity-args.js'
import {gitReason, runGit, splitNul} from './run-git.js'

export interface CommitAgentInput {
  /** The working tree's top folder. */
  root: string
  /** Exactly the files to commit, repository-relative: the agent's `own` changes from `attributeChanges`. */
  paths: readonly string[]
  /** `commitMessage(title, agent)`. */
  message: string
  mutex?: Mutex
}

/** `commit` is the new commit's full sha, or undefined when the paths held nothing to commit. */
export type CommitAgentResult = {ok: true; commit?: string} | GitFailure

/**
 * `commit: true`: commit exactly the files an agent changed, deletions
 * included, and nothing else — other agents' work and whatever the person had
 * staged stay as they were (`git commit --only -- <paths>`).
 */
export async function commitAgent(input: CommitAgentInput): Promise<CommitAgentResult> {
  return (input.mutex ?? gitMutex).run(() => commit(input))
}

async function commit(input: CommitAgentInput): Promise<CommitAgentResult> {
  const paths = await committable(input.root, [...new Set(input.paths)])
  if (paths.length === 0) return {ok: true}
  // `add -A` with pathspecs stages deletions of those paths too.
  const added = await runGit(input.root, ['add', '-A', '--', ...paths])
  if (!added.ok) return {ok: false, reason: gitReason(added, 'git add')}
  const head = await headSha(input.root)
  if (head) {
    const staged = await runGit(input.root, ['diff', '--cached', '--name-only', '-z', head, '--', ...paths])
    if (!staged.ok) return {ok: false, reason: gitReason(staged, 'git diff')}
    if (splitNul(staged.stdout).length === 0) return {ok: true}
  }
  const identity = await identityArgs(input.root)
  const committed = await runGit(input.root, [...identity, 'commit', '--quiet', '--only', '-m', input.message, '--', ...paths])
  if (!committed.ok) {
    if (/nothing (added )?to commit|no changes added/i.test(committed.stdout + committed.stderr)) return {ok: true}
    return {ok: false, reason: gitReason(committed, 'git commit')}
  }
  const sha = await headSha(input.root)
  return sha ? {ok: true, commit: sha} : {ok: false, reason: 'git commit: no HEAD after committing'}
}

// A path that is neither on disk nor known to git (made and removed during the run) would fail the whole pathspec.
async function committable(root: string, paths: string[]): Promise<string[]> {
  if (paths.length === 0) return []
  // Known means in the index or in HEAD (an agent's `git rm` leaves it only in HEAD).
  const cached = await runGit(root, ['ls-files', '-z', '--cached', '--', ...paths])
  const inHead = await runGit(root, ['ls-tree', '-r', '--name-only', '-z', 'HEAD', '--', ...paths])
  const tracked = new Set([...splitNul(cached.stdout), ...(inHead.ok ? splitNul(inHead.stdout) : [])])
  const result: string[] = []
  for (const path of paths) {
    const exists = await lstat(join(root, path)).then(() => true, () => false)
    if (exists || tracked.has(path)) result.push(path)
  }
  return result
}
