import {existsSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

// No vitest here: test/global-setup.ts imports this file outside any test.
const root = fileURLToPath(new URL('../..', import.meta.url))

/** What a run without the real plans says, once (test/global-setup.ts), and what each skipped block is called. */
export const realPlansMissing = '../shared/real-plans not found beside the checkout: skipped (CI runs them)'

/**
 * `../shared/real-plans/` beside the checkout (as CI has it), or beside a
 * folder above it (a git worktree under `wt/`), if there is one: the real
 * plans are not ours to copy into the project.
 */
export function findRealPlansDir(): string | undefined {
  for (let dir = dirname(root); ; dir = dirname(dir)) {
    const candidate = join(dir, 'shared', 'real-plans')
    if (existsSync(candidate)) return candidate
    if (dirname(dir) === dir) return undefined
  }
}
