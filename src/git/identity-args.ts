import {runGit} from './run-git.js'

/**
 * `-c user.…` options for mdplan's own commits. A machine with no identity
 * configured (CI, a fresh container) must still be able to commit, but a
 * person's configured identity always wins.
 */
export async function identityArgs(cwd: string): Promise<string[]> {
  const email = await runGit(cwd, ['config', 'user.email'], {retryOnLock: false})
  if (email.stdout.trim() !== '') return []
  const name = await runGit(cwd, ['config', 'user.name'], {retryOnLock: false})
  const args = ['-c', 'user.email=mdplan@localhost']
  if (name.stdout.trim() === '') args.push('-c', 'user.name=mdplan')
  return args
}
