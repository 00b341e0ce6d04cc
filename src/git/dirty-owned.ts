import {ownersOf} from './ownership-map.js'
import {runGit, splitNul} from './run-git.js'
import type {GuardContext} from './guard-context.js'

/** An agent's own (declared) files that differ from HEAD now: the work it left in a shared tree, not committed yet. */
export async function dirtyOwned(context: Pick<GuardContext, 'owners' | 'root'>, id: string): Promise<string[]> {
  const {owners} = context
  const declared = [...owners].filter(([, ids]) => ids.includes(id)).map(([path]) => path)
  if (declared.length === 0) return []
  const status = await runGit(context.root, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--', ...declared])
  if (!status.ok) return []
  return splitNul(status.stdout).map((entry) => entry.slice(3)).filter((path) => path !== '' && ownersOf(path, owners).includes(id))
}
