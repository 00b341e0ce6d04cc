import type {Agent} from '../plan/types.js'
import type {GitGuard} from '../git/git-guard.js'
import type {Input} from './exec-event.js'

/**
 * The held work of an agent a person approved (docs/review.md), brought in as its completion would have: its
 * worktree branch merged, or its files committed (`commit: true`); nothing to do outside git or in a shared tree
 * without commits. Never after a lost lock: the row keeps `review: waiting` and the run holding the lock merges it.
 */
export async function approveWork(input: {agent: Agent; git: GitGuard | undefined; lock: {check(): Error | undefined} | undefined}): Promise<Input[]> {
  const {agent, git} = input
  const approved = {type: 'approved', agent: agent.id} as const
  const lost = input.lock?.check()
  if (lost) return [{type: 'lock-lost', reason: lost.message}, {...approved, notes: {}, warnings: [], unchecked: 'the run lock was lost'}]
  if (!git) return [{...approved, notes: {}, warnings: []}]
  const result = await git.approve(agent).catch((error: unknown) => ({
    notes: {},
    warnings: [`git: could not merge the approved work of ${agent.id}: ${error instanceof Error ? error.message : String(error)}`],
    fail: undefined
  }))
  return [{...approved, ...result}]
}
