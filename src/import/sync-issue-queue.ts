import fs from 'node:fs'
import path from 'node:path'
import type {RunEvent} from '../events.js'
import type {Plan} from '../plan/types.js'
import {atomicWrite} from '../store/atomic-write.js'
import {markIssueCompleted} from './mark-issue-completed.js'

export interface SyncIssueQueueOptions {
  /** Told when the queue cannot be updated (the run goes on). */
  warn?: (message: string) => void
}

/**
 * For a plan made by `mdplan import` (front matter `issues: <queue>`): a run
 * event listener that marks an issue `completed` in its JSONL queue when the
 * agent carrying that issue (`- **issue**: <id>`) completes. Each write is
 * atomic (temp file, fsync, rename, the file's mode kept) and changes only
 * that issue's line. For any other plan the listener does nothing.
 */
export function syncIssueQueue(plan: Plan, options: SyncIssueQueueOptions = {}): (event: RunEvent) => void {
  const queue = plan.settings.raw.issues
  const issues = new Map<string, string>()
  for (const agent of plan.agents) {
    const issue = agent.fields.issue?.value.trim()
    if (issue) issues.set(agent.id, issue)
  }
  if (typeof queue !== 'string' || queue.trim() === '' || issues.size === 0) return () => {}
  const file = path.resolve(path.dirname(path.resolve(plan.file)), queue)
  const warn = options.warn ?? (() => {})

  return (event) => {
    if (event.type !== 'completed') return
    const issue = issues.get(event.agent)
    if (issue === undefined) return
    try {
      const text = fs.readFileSync(file, 'utf8')
      const marked = markIssueCompleted(text, issue)
      if (marked.outcome === 'not-found') warn(`issue queue ${queue}: no issue "${issue}" (agent ${event.agent}); nothing marked`)
      if (marked.text === undefined) return
      atomicWrite(file, Buffer.from(marked.text), {mode: fs.statSync(file).mode & 0o7777})
    } catch (error) {
      warn(`issue queue ${queue}: could not mark issue "${issue}" completed: ${(error as Error).message}`)
    }
  }
}
