import type {Agent} from '../plan/types.js'
import {dirtyOwned} from './dirty-owned.js'
import {changedSince} from './changed-since.js'
import {attributeChanges} from './attribute-changes.js'
import {formatScopeNote} from './format-scope-note.js'
import {commitAgent} from './commit-agent.js'
import {commitMessage} from './commit-message.js'
import {shortSha} from './head-sha.js'
import type {CompletionGit, NotePatch} from './attempt-git.js'
import type {ActiveAttempt, GuardContext} from './guard-context.js'

/** What a shared-tree agent changed, against its files and the agents that overlapped it; its commit. */
export async function checkShared(
  context: GuardContext,
  agent: Agent,
  entry: ActiveAttempt,
  check: {succeeded: boolean; endedAt: number | undefined; overlapping: string[]; hold?: boolean}
): Promise<CompletionGit> {
  const {snapshots} = context
  const {succeeded, endedAt} = check
  const notes: NotePatch = {}
  const warnings: string[] = []
  // It ended: a later launch's snapshot must have seen its last write.
  snapshots.touched(endedAt ?? Date.now())
  if (!entry.snapshot) return {notes, warnings}
  const changed = await changedSince(entry.snapshot, context.ignore, () => snapshots.take(endedAt ?? Date.now()))
  if (!changed.ok) {
    warnings.push(`git: could not check the scope of ${agent.id}: ${changed.reason}`)
    return {notes, warnings}
  }
  const attribution = attributeChanges({agent: agent.id, changed: changed.paths, owners: context.owners, running: check.overlapping})
  for (const path of attribution.undeclared) context.undeclared.add(path)
  context.unattributed.push(...attribution.unattributed)
  const scope = formatScopeNote(attribution.violations)
  notes.scope = scope
  if (scope && context.strictScope && succeeded) return {notes, warnings, fail: `scope: ${scope}`}
  // Held for a person's review (docs/review.md): its files stay uncommitted until approval commits them (approveHeld).
  const commits = context.commits(agent) && check.hold !== true
  // A resumed or retried attempt's snapshot already holds the earlier attempt's work: commit that too.
  const earlier = succeeded && commits && entry.resumed ? await dirtyOwned(context, agent.id) : []
  const paths = [...new Set([...attribution.own, ...earlier])]
  if (succeeded && commits && paths.length > 0) {
    const wrote = snapshots.writing()
    const commit = await commitAgent({root: context.root, paths, message: commitMessage(context.title, agent)}).finally(wrote)
    if (commit.cleared) warnings.push(`git: removed ${commit.cleared.join(', ')}, left by mdplan's own commit in a run that was killed`)
    if (!commit.ok) warnings.push(`git: could not commit the work of ${agent.id}: ${commit.reason}`)
    else if (commit.commit) notes.commit = shortSha(commit.commit)
  }
  return {notes, warnings}
}
