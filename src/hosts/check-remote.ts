import type {Agent} from '../plan/types.js'
import type {OwnershipMap} from '../git/ownership-map.js'
import type {JobRef} from './host.js'
import type {CompletionGit} from '../git/git-guard.js'
import {attributeChanges} from '../git/attribute-changes.js'
import {commitMessage} from '../git/commit-message.js'
import {formatScopeNote} from '../git/format-scope-note.js'
import {gitMutex} from '../git/git-mutex.js'
import {shortSha} from '../git/head-sha.js'
import {mergeBranch} from '../git/merge-branch.js'
import {runGit, splitNul} from '../git/run-git.js'
import {worktreeNames} from '../layout/worktree-names.js'
import type {RuntimeContext} from './runtime-context.js'

/** How a run merges remote work: the files each agent owns, who commits, and whether a scope violation fails. */
export interface RemoteMerge {
  owners: OwnershipMap
  /** identityArgs, read once: every merge of the run commits as the same person. */
  identity: Promise<string[]>
  strictScope: boolean
  commits: (agent: Agent) => boolean
}

/** Fetch a remote attempt's result, check its scope, merge it: the same rules as a worktree's. */
export async function checkRemote(context: RuntimeContext, merge: RemoteMerge, agent: Agent, job: JobRef, succeeded: boolean): Promise<CompletionGit> {
  const {root, prefix} = context
  const notes: Record<string, string | undefined> = {}
  const warnings: string[] = []
  if (!succeeded) return {notes, warnings}
  const base = context.bases.get(job.key)
  const {branch} = worktreeNames(root, context.slug, agent.id)
  if (!base) return {notes, warnings, fail: `no base commit recorded for ${job.key}`}
  const collected = await context.host(job.host).collect({key: job.key, root, branch, base})
  if (!collected.ok) return {notes, warnings, fail: collected.reason}
  if (!collected.commit) return {notes, warnings}
  // On its own host every change is the agent's: the scope check needs no window, only the diff.
  const diff = await runGit(root, ['diff', '--name-only', '-z', '--no-renames', base, collected.commit])
  const changed = splitNul(diff.stdout).filter((path) => path.startsWith(prefix)).map((path) => path.slice(prefix.length))
  const scope = formatScopeNote(attributeChanges({agent: agent.id, changed, owners: merge.owners, running: [agent.id]}).violations)
  notes.scope = scope
  if (scope && merge.strictScope) return {notes, warnings, fail: `scope: ${scope}`}
  const merged = await gitMutex.run(async () => mergeBranch({root, branch, message: commitMessage(context.title, agent), identity: await merge.identity}))
  // The branch is kept on a conflict, so a person can resolve it by hand.
  if (!merged.ok) return {notes, warnings, fail: merged.reason}
  await runGit(root, ['branch', '-D', branch])
  if (merge.commits(agent)) notes.commit = shortSha(collected.commit)
  return {notes, warnings}
}
