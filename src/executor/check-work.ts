import type {Agent} from '../plan/types.js'
import type {GitGuard} from '../git/git-guard.js'
import {gitWrite} from '../git/git-write.js'
import type {HostRuntime} from '../hosts/host-runtime.js'
import type {ExecEffect} from './exec-effect.js'
import type {Input} from './exec-event.js'

/**
 * The git side of an attempt that ended: commit its files (`commit: true`), merge its worktree branch or
 * its remote job's result, check its scope. Never after a lost lock: the plan and its agents are another
 * run's by then, which may have resumed this agent in the same files already. The work is left as it is
 * (uncommitted, or on its branch, or on its host under its key), the row stays `in_progress` on disk, and
 * the run that holds the lock resumes the agent or collects the job's result and takes the work in once.
 */
export async function checkWork(input: {
  effect: Extract<ExecEffect, {type: 'check'}>
  agent: Agent
  git: GitGuard | undefined
  hosts: HostRuntime | undefined
  endedAt: number | undefined
  lock: {check(): Error | undefined} | undefined
}): Promise<Input[]> {
  const {effect, agent, git, hosts} = input
  const checked = {type: 'checked', agent: effect.agent, attempt: effect.attempt} as const
  const lost = input.lock?.check()
  if (lost) return [{type: 'lock-lost', reason: lost.message}, {...checked, notes: {}, warnings: [], unchecked: 'the run lock was lost'}]
  const work = effect.job && hosts ? gitWrite(git, () => hosts.check(agent, effect.job!, effect.succeeded)) : git!.afterCompletion(agent, effect.succeeded, input.endedAt, effect.hold === true)
  const result = await work.catch((error: unknown) => ({
    notes: {},
    warnings: [`git: could not check the work of ${effect.agent}: ${error instanceof Error ? error.message : String(error)}`],
    fail: undefined
  }))
  return [{...checked, ...result}]
}
