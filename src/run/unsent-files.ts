import {basename} from 'node:path'
import {runGit, splitNul} from '../git/run-git.js'

/** How many paths the warning names before it says how many more there are. */
const shown = 10

/**
 * The working tree at `root` as a remote host sees it (it gets an attempt's base commit, nothing else): whether
 * the repository has a commit yet, and what it will not get, in one phrase (files changed or deleted and not
 * committed, and untracked ones, an untracked folder as one path as `git status` shows it: the first few, then
 * how many more), or undefined when there is nothing. `plans` (paths from `root`) are left out, with the files
 * mdplan keeps beside them: runs write them all the time, and agents get the plan in their prompt. One `git
 * status`; undefined altogether when git cannot say.
 */
export async function workingTree(root: string, plans: readonly string[]): Promise<{committed: boolean; unsent?: string} | undefined> {
  const status = await runGit(root, ['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=normal'])
  if (!status.ok) return undefined
  const fields = splitNul(status.stdout)
  const ours = (path: string): boolean =>
    /(^|\/)\.mdplan(\/|$)/.test(path) ||
    plans.some((plan) => {
      const folder = plan.slice(0, plan.length - basename(plan).length)
      return path === plan || path === `${plan}.lock/` || path === `${plan}.write-lock` || (path.startsWith(`${folder}.${basename(plan)}.`) && path.endsWith('.mdplan-tmp'))
    })
  let committed = true
  const paths: string[] = []
  for (let index = 0; index < fields.length; index++) {
    const field = fields[index]!
    if (field === '# branch.oid (initial)') committed = false
    // `1 XY sub mH mI mW hH hI path`, `2 … Xscore path` (its source path is the next field), `u … path`, `? path`.
    const at = {'1': 8, '2': 9, u: 10, '?': 1}[field[0]!]
    if (at === undefined || field[1] !== ' ') continue
    if (field[0] === '2') index++
    const path = field.split(' ').slice(at).join(' ')
    if (path === '' || ours(path)) continue
    const code = field.slice(2, 4)
    paths.push(`${path} (${field[0] === '?' ? 'untracked' : code.includes('D') ? 'deleted' : 'changed'})`)
  }
  if (paths.length === 0) return {committed}
  const more = paths.length - shown
  return {committed, unsent: `${paths.length === 1 ? '1 path here is' : `${paths.length} paths here are`} not committed: ${paths.slice(0, shown).join(', ')}${more > 0 ? `, and ${more} more` : ''}`}
}
