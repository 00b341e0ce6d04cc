import {readFileSync} from 'node:fs'
import {join} from 'node:path'

/**
 * Whether `path` (under `root`) is a plan some mdplan run writes: a Markdown file with an
 * `## Execution State` table whose `Last updated:` a run has stamped. Another plan's run in the same
 * repository rewrites its own table as its agents go; that change is no agent's of this run, so the
 * end-of-run scope report leaves such a file out instead of listing it as an undeclared change. A plan
 * an agent writes from scratch has no stamp yet and is still reported.
 */
export function isRunPlanFile(root: string, path: string): boolean {
  if (!/\.(md|markdown)$/i.test(path)) return false
  let text: string
  try {
    text = readFileSync(join(root, path), 'utf8')
  } catch {
    return false
  }
  const state = /^#{2}\s+Execution State\s*#*\s*$/m.exec(text)
  if (!state) return false
  const rest = text.slice(state.index)
  return /^\|\s*Agent\s*\|\s*Status\s*\|/m.test(rest) && /^Last updated:\s*\d{4}-\d{2}-\d{2}T/m.test(rest)
}
