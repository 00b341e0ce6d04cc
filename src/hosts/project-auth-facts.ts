import type {Runner} from '../runners/runner.js'
import type {ProjectFiles} from '../runners/host-auth.js'
import {runGit, splitNul} from '../git/run-git.js'

/**
 * The project files the runners read their auth from (`Runner.projectAuthFiles`: gemini's settings and
 * `.env` files, opencode's configs), as an agent's clone on a host will hold them, read here: the clone is
 * made from a commit, so what it holds is what HEAD holds (an untracked `.env` never reaches the host).
 * `prefix` is the plan's folder (`a/b/` or empty); the host's preflight reads the folders above the clone
 * and the host's HOME there. No runner asking for a file: nothing is read.
 */
export async function projectAuthFacts(root: string, prefix: string, runners: Iterable<Runner>): Promise<ProjectFiles> {
  const wanted = new Set([...runners].flatMap((runner) => runner.projectAuthFiles?.(prefix) ?? []))
  if (wanted.size === 0) return {prefix, texts: new Map()}
  const listed = await runGit(root, ['ls-tree', '-r', '-z', '--name-only', 'HEAD', '--', ...wanted])
  const present = (listed.ok ? splitNul(listed.stdout) : []).filter((path) => wanted.has(path))
  const read = async (path: string): Promise<[string, string]> => [path, (await runGit(root, ['cat-file', 'blob', `HEAD:${path}`])).stdout]
  return {prefix, texts: new Map(await Promise.all(present.map(read)))}
}
