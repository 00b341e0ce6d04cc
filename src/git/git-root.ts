import {runGit} from './run-git.js'

export interface GitRoot {
  /** Absolute path of the working tree's top folder, as git prints it. */
  root: string
  /** `cwd` relative to `root`, with a trailing `/` (`''` at the top): plan paths are relative to `cwd`, git's to `root`. */
  prefix: string
}

/** Where the working tree containing `cwd` starts, or undefined outside one. */
export async function gitRoot(cwd: string): Promise<GitRoot | undefined> {
  const result = await runGit(cwd, ['rev-parse', '--show-toplevel', '--show-prefix'], {retryOnLock: false})
  if (!result.ok) return undefined
  const [root, prefix = ''] = result.stdout.split('\n')
  return root ? {root, prefix} : undefined
}
