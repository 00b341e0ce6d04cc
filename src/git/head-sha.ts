import {runGit} from './run-git.js'

/** The full sha of HEAD, or undefined in a repository with no commit yet. */
export async function headSha(cwd: string): Promise<string | undefined> {
  const result = await runGit(cwd, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'])
  return result.ok ? result.stdout.trim() : undefined
}

/** The form recorded in the plan (`base: 1a2b3c4d5e6f`): long enough to stay unique, short enough to read. */
export function shortSha(sha: string): string {
  return sha.slice(0, 12)
}
