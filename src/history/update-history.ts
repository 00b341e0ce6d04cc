import type {Plan, Status} from '../plan/types.js'
import {dependencyDepth} from '../plan/dependency-depth.js'
import {defaultMaxEntries, historyVersion, type AgentHistory, type HistoryEntry} from './history-types.js'
import {pruneHistory} from './prune-history.js'

export interface UpdateHistoryOptions {
  /** The plan as the history should name it (the path given on the command line). */
  planName: string
  /** ISO 8601: the time recorded for an agent whose own times are known from nowhere else. */
  now: string
  /** Each agent's own start and end (ISO 8601), from the run log. */
  times?: ReadonlyMap<string, {start: string; end?: string}>
  /** Overrides the file's own `max_entries`. */
  maxEntries?: number
  /** The plan is a child plan: the parent plan, the agent that runs it, and that agent's `parallel_group`. */
  parent?: {plan: string; agent: string; group: string}
}

export interface UpdatedHistory {
  history: AgentHistory
  /** For `current-agent-id.txt`: the latest running agent of the plan, else the last one recorded. */
  currentAgentId?: string
}

/**
 * How a row's status reads in the history. `needs_input` (and `awaiting_review`) stays `spawned`: the
 * agent's session waits for an answer (or a review) and will be resumed, so it must not be
 * pruned. `pending` rows have no agent yet and are left out.
 */
const statusMap: Partial<Record<Status, string>> = {
  in_progress: 'spawned',
  needs_input: 'spawned',
  awaiting_review: 'spawned',
  completed: 'completed',
  failed: 'failed'
}

/**
 * The history file after recording every agent of `plan` that has run: one
 * entry per agent, updated in place when it is already there (matched by
 * `agent_id` and `plan`), new ones appended; then pruned to `max_entries`.
 * Pure: the caller reads and writes the file.
 */
export function updateHistory(existing: AgentHistory | undefined, plan: Plan, options: UpdateHistoryOptions): UpdatedHistory {
  const maxEntries = options.maxEntries ?? existing?.max_entries ?? defaultMaxEntries
  const entries = [...(existing?.entries ?? [])]
  const table = plan.state?.table
  const rows = new Map((table?.rows ?? []).map((row) => [row.agent, row]))
  const depth = dependencyDepth(plan)
  // Without a run log (a plan another machine ran), the table's own timing is the closest there is.
  const meta = new Map((plan.state?.meta ?? []).map((line) => [line.key, isoOf(line.value)]))
  let current: HistoryEntry | undefined
  let last: HistoryEntry | undefined

  for (const agent of plan.agents) {
    const row = rows.get(agent.id)
    const status = row?.status === undefined ? undefined : statusMap[row.status]
    if (!row || status === undefined) continue
    const cell = (index: number | undefined): string => {
      const value = index !== undefined && index >= 0 ? (row.cells[index]?.value ?? '') : ''
      return value === '—' ? '' : value
    }
    const agentId = cell(table?.index.agentId) || agent.id
    const at = entries.findIndex((entry) => entry.plan === options.planName && (entry.agent_id === agentId || entry.agent_id === agent.id))
    const previous = at === -1 ? undefined : entries[at]
    const finished = status !== 'spawned'
    const description = agent.fields.description?.value
    const own = options.times?.get(agent.id)
    // The agent's own times: the run log's, else what the history already had, else the table's run.
    const timestamp = own?.start ?? previous?.timestamp ?? meta.get('started') ?? options.now
    const completion = !finished
      ? null
      : (own?.end ?? (previous?.status === status && previous.completion_timestamp ? previous.completion_timestamp : (meta.get('last_updated') ?? options.now)))
    const entry: HistoryEntry = {
      ...previous,
      agent_id: agentId,
      task_description: `${agent.id}: ${agent.name}${description ? ` — ${description}` : ''}`,
      phase: previous?.phase ?? plan.title ?? null,
      plan: options.planName,
      segment: previous?.segment ?? null,
      timestamp,
      status,
      completion_timestamp: completion,
      execution_mode: 'parallel',
      parallel_group: `${options.parent ? `${options.parent.group}/` : ''}wave-${(depth.get(agent.id) ?? 0) + 1}`,
      ...(options.parent ? {parent: {plan: options.parent.plan, agent: options.parent.agent}} : {}),
      granularity: 'agent',
      depends_on: agent.dependsOn.map((dep) => dep.id),
      files_modified: [...agent.creates, ...agent.modifies, ...agent.deletes].map((path) => path.path),
      checkpoints_skipped: typeof previous?.checkpoints_skipped === 'number' ? previous.checkpoints_skipped : 0,
      task_results: [
        {
          task: `${agent.id}: ${agent.name}`,
          status: row.status,
          duration: cell(table?.index.duration) || null,
          notes: cell(table?.index.notes) || null
        }
      ]
    }
    if (at === -1) entries.push(entry)
    else entries[at] = entry
    last = entry
    if (status === 'spawned' && (!current || Date.parse(entry.timestamp) >= Date.parse(current.timestamp))) current = entry
  }

  const history: AgentHistory = {...existing, version: historyVersion, max_entries: maxEntries, entries: pruneHistory(entries, maxEntries)}
  const result: UpdatedHistory = {history}
  const currentAgentId = (current ?? last)?.agent_id
  if (currentAgentId !== undefined) result.currentAgentId = currentAgentId
  return result
}

/** A time the table wrote (ISO, or local without a zone) as ISO 8601; undefined for `—` or no time. */
function isoOf(value: string): string | undefined {
  const ms = Date.parse(value.trim())
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString()
}
