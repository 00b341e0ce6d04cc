import {basename} from 'node:path'
import {runGit, splitNul} from '../git/run-git.js'

/** How many paths the warning names before it says how many more there are. */
const shown = 10

/**
 * What of the working tree at `root` a remote host does not get (it gets the attempt's base commit): files
 * changed or deleted and not committed, and untracked ones (an untracked folder as one path, as `git status`
 * shows it), in one phrase: the first few, then how many more; undefined when there are none. `plans` (paths
 * from `root`) are left out, with the files mdplan keeps beside them: the runs write them all the time, and
 * agents read the plan from their prompt, not from the file.
 */
export async function unsentFiles(root: string, plans: readonly string[]): Promise<string | undefined> {
  const status = await runGit(root, ['status', '--porcelain=v1', '-z', '--untracked-files=normal'])
  if (!status.ok) return undefined
  const fields = splitNul(status.stdout)
  const ours = (path: string): boolean =>
    /(^|\/)\.mdplan(\/|$)/.test(path) ||
    plans.some((plan) => path === plan || path === `${plan}.lock/` || path === `${plan}.write-lock` || (path.startsWith(plan.slice(0, plan.length - basename(plan).length) + '.' + basename(plan) + '.') && path.endsWith('.mdplan-tmp')))
  const paths: string[] = []
  for (let index = 0; index < fields.length; index++) {
    const field = fields[index]!
    const code = field.slice(0, 2)
    const path = field.slice(3)
    // A rename's or copy's source path follows it.
    if (/[RC]/.test(code[0]!)) index++
    if (path === '' || ours(path)) continue
    paths.push(`${path} (${code === '??' ? 'untracked' : code.includes('D') ? 'deleted' : 'changed'})`)
  }
  if (paths.length === 0) return undefined
  const more = paths.length - shown
  return `${paths.length === 1 ? '1 path here is' : `${paths.length} paths here are`} not committed: ${paths.slice(0, shown).join(', ')}${more > 0 ? `, and ${more} more` : ''}`
}
