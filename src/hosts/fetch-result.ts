import {stat} from 'node:fs/promises'
import {gitMutex} from '../git/git-mutex.js'
import {gitReason, runGit} from '../git/run-git.js'
import type {Collected} from './host.js'

/**
 * Bring a job's result bundle home onto `refs/heads/<branch>`, and accept it
 * only if it is the work of `key` (its commit carries `Mdplan-Key: <key>`)
 * grown from `base`: a late result of an older attempt is never merged.
 * An empty file: the job made no commit.
 */
export async function fetchResult({root, file, key, branch, base}: {root: string; file: string; key: string; branch: string; base: string}): Promise<Collected> {
  if (((await stat(file).catch(() => undefined))?.size ?? 0) === 0) return {ok: true}
  return gitMutex.run(async () => {
    const into = await runGit(root, ['fetch', '-q', file, `+refs/heads/${branch}:refs/heads/${branch}`])
    if (!into.ok) return {ok: false, reason: gitReason(into, 'git fetch (result bundle)')}
    const message = await runGit(root, ['log', '-1', '--format=%B', `refs/heads/${branch}`])
    // The whole trailer line: a key can begin another (agent `A` and agent `A-a1-3f9c1a`'s keys).
    if (!message.stdout.split('\n').some((line) => line.trim() === `Mdplan-Key: ${key}`)) return {ok: false, reason: `the result on ${branch} is not the work of ${key}`}
    const grown = await runGit(root, ['merge-base', '--is-ancestor', base, `refs/heads/${branch}`])
    if (!grown.ok) return {ok: false, reason: `the result on ${branch} does not start from ${base.slice(0, 12)}`}
    const head = await runGit(root, ['rev-parse', `refs/heads/${branch}`])
    return {ok: true, commit: head.stdout.trim()}
  })
}
