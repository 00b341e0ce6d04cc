import {stat} from 'node:fs/promises'
import {gitMutex} from '../git/git-mutex.js'
import {gitReason, runGit} from '../git/run-git.js'
import type {Collected} from './host.js'

/**
 * Bring a job's result bundle home: fetch its branch into `refs/heads/<branch>`
 * of `root`, then check that the tip carries the job's key and grows from the
 * recorded base (fencing: a late result of an older attempt is never merged).
 * A missing or empty bundle means the job committed nothing.
 */
export async function collectBundle(input: {file: string | undefined; key: string; root: string; branch: string; base: string}): Promise<Collected> {
  const {file, key, root, branch, base} = input
  const size = file === undefined ? 0 : await stat(file).then((s) => s.size, () => 0)
  if (file === undefined || size === 0) return {ok: true}
  return gitMutex.run(async () => {
    const into = await runGit(root, ['fetch', '-q', file, `+refs/heads/${branch}:refs/heads/${branch}`])
    if (!into.ok) return {ok: false, reason: gitReason(into, 'git fetch (result bundle)')}
    const message = await runGit(root, ['log', '-1', '--format=%B', `refs/heads/${branch}`])
    if (!message.stdout.includes(`Mdplan-Key: ${key}`)) return {ok: false, reason: `the result on ${branch} is not the work of ${key}`}
    const grown = await runGit(root, ['merge-base', '--is-ancestor', base, `refs/heads/${branch}`])
    if (!grown.ok) return {ok: false, reason: `the result on ${branch} does not start from ${base.slice(0, 12)}`}
    const head = await runGit(root, ['rev-parse', `refs/heads/${branch}`])
    return {ok: true, commit: head.stdout.trim()}
  })
}
