import {basename, dirname} from 'node:path'
import {runGit} from '../git/run-git.js'

export type PlanAtRevision = {ok: true; text: string | undefined} | {ok: false; reason: string}

/**
 * The plan's text as committed at `rev` (`git show REV:./file`), undefined
 * when the file did not exist then; a failure (not a repository, an unknown
 * revision) is a value with git's reason.
 */
export async function readPlanAt(file: string, rev: string): Promise<PlanAtRevision> {
  const result = await runGit(dirname(file), ['show', `${rev}:./${basename(file)}`])
  if (result.ok) return {ok: true, text: result.stdout}
  const stderr = result.stderr.trim()
  if (/exists on disk, but not in|does not exist in/.test(stderr)) return {ok: true, text: undefined}
  return {ok: false, reason: stderr.split('\n')[0] ?? `git show failed (exit ${result.exitCode})`}
}
