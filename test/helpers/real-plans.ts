import {existsSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {root} from './run-cli.js'

/**
 * `../shared/real-plans/` beside the checkout (as CI has it), or beside a
 * folder above it (a git worktree under `wt/`): the real plans are not ours to
 * copy into the project.
 */
export function realPlansDir(): string {
  for (let dir = dirname(root); ; dir = dirname(dir)) {
    const candidate = join(dir, 'shared', 'real-plans')
    if (existsSync(candidate)) return candidate
    if (dirname(dir) === dir) throw new Error(`no shared/real-plans/ beside ${root} or above it`)
  }
}
