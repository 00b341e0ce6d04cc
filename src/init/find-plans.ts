import {open} from 'node:fs/promises'
import {join} from 'node:path'
import {runGit, splitNul} from '../git/run-git.js'

const agentsHeading = /^ {0,3}##[ \t]+agents[ \t]*#*[ \t]*\r?$/im
const stateHeading = /^ {0,3}##[ \t]+execution[ \t_-]+state[:.]?[ \t]*#*[ \t]*\r?$/im
/** A plan's headings are near its top and its table near its end, but a 1000-agent plan is under 1 MB. */
const readLimit = 4 * 1024 * 1024

/**
 * The plans tracked in the repository under `root`: Markdown files with an
 * `## Agents` and an `## Execution State` section, wherever people keep them
 * (`docs/plans/`, the top folder); and every tracked Markdown file, for
 * telling a folder of plans from a folder that also holds other pages. Paths
 * relative to `root`, in git's order.
 */
export async function findPlans(root: string): Promise<{plans: string[]; markdown: string[]}> {
  const listed = await runGit(root, ['ls-files', '-z', '--cached'])
  if (!listed.ok) return {plans: [], markdown: []}
  const candidates = splitNul(listed.stdout).filter((path) => /\.md$/i.test(path))
  const plans: string[] = []
  for (const path of candidates) {
    const text = await head(join(root, path))
    if (text !== undefined && agentsHeading.test(text) && stateHeading.test(text)) plans.push(path)
  }
  return {plans, markdown: candidates}
}

async function head(file: string): Promise<string | undefined> {
  let handle
  try {
    handle = await open(file, 'r')
    const buffer = Buffer.alloc(readLimit)
    const {bytesRead} = await handle.read(buffer, 0, readLimit, 0)
    return buffer.toString('utf8', 0, bytesRead)
  } catch {
    // Deleted in the work tree, a folder (a submodule), unreadable: not a plan to cover.
    return undefined
  } finally {
    await handle?.close()
  }
}
