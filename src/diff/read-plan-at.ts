import {basename, dirname} from 'node:path'
import {runGit} from '../git/run-git.js'

export type PlanAtRevision = {ok: true; text: string | undefined} | {ok: false; reason: string}

/**
 * The plan's text as committed at `commit` (`git show COMMIT:./file`; a
 * commit `resolveRevision` checked, after `--end-of-options` all the same),
 * undefined when the file did not exist then; a failure is a value with git's
 * reason.
 */
export async function readPlanAt(file: string, commit: string): Promise<PlanAtRevision> {
  const result = await runGit(dirname(file), ['show', '--end-of-options', `${commit}:./${basename(file)}`])
  if (result.ok) return {ok: true, text: result.stdout}
  const stderr = result.stderr.trim()
  if (/exists on disk, but not in|does not exist in/.test(stderr)) return {ok: true, text: undefined}
  return {ok: false, reason: stderr.split('\n')[0] ?? `git show failed (exit ${result.exitCode})`}
}
