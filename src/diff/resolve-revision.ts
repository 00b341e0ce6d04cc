import {runGit} from '../git/run-git.js'

/** The commit a diff compares with: the revision's own, or where the branches parted. */
export type RevisionFound = {ok: true; commit: string; mergeBase?: string} | {ok: false; reason: string}

/**
 * Turn what a person typed into a commit, never into a git option (`--output=X`
 * would make `git show` write a file): the revision is checked with
 * `rev-parse --verify` after `--end-of-options`, and only the commit it names
 * goes to git again. A revision that is not an ancestor of HEAD (the tip of a
 * branch that moved on) is replaced by the merge base, unless `tip`: what the
 * working tree changed, not what the other branch did since.
 */
export async function resolveRevision(cwd: string, rev: string, options: {tip?: boolean} = {}): Promise<RevisionFound> {
  const verified = await runGit(cwd, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`])
  if (!verified.ok) {
    const fatal = verified.stderr.split('\n').find((line) => /not a git repository/i.test(line))
    return {ok: false, reason: fatal?.replace(/^fatal: /, '') ?? 'unknown revision: no commit has that name'}
  }
  const commit = verified.stdout.trim()
  if (options.tip) return {ok: true, commit}
  const ancestor = await runGit(cwd, ['merge-base', '--is-ancestor', '--end-of-options', commit, 'HEAD'])
  // 1: not an ancestor. Anything else (no HEAD yet): compare with the commit itself.
  if (ancestor.exitCode !== 1) return {ok: true, commit}
  const base = await runGit(cwd, ['merge-base', '--end-of-options', commit, 'HEAD'])
  if (!base.ok) return {ok: true, commit}
  return {ok: true, commit: base.stdout.trim(), mergeBase: base.stdout.trim()}
}
