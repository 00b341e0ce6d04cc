import {formatNotes, parseNotes} from '../plan/notes.js'
import type {Plan, Status} from '../plan/types.js'
import {readMeta, readRows, emptyRow, type TableMeta} from '../store/table-state.js'

export interface AgentChange {
  id: string
  /** The agent's short name, when the plan has the agent. */
  name: string | null
  /** null: the row did not exist before. */
  from: Status | null
  to: Status
  agentId: string | null
  duration: string | null
  /** Notes items that are new (or changed) since, joined with `; `. */
  notes: string | null
}

export interface MetaChange {
  from: string | null
  to: string | null
}

export interface StateDiff {
  agents: AgentChange[]
  build: MetaChange | null
  integration: MetaChange | null
  started: MetaChange | null
  lastUpdated: MetaChange | null
}

/**
 * What changed in the Execution State from `before` (undefined: the plan did
 * not exist then) to `after`: one entry per row that changed, in the table's
 * order, and the meta lines that changed. Pure.
 */
export function stateDiff(before: Plan | undefined, after: Plan): StateDiff {
  const old = before ? readRows(before) : new Map()
  const now = readRows(after)
  const names = new Map(after.agents.map((agent) => [agent.id, agent.name]))
  const agents: AgentChange[] = []
  for (const [id, row] of now) {
    const was = old.get(id)
    const prior = was ?? emptyRow()
    if (was && prior.status === row.status && prior.agentId === row.agentId && prior.duration === row.duration && prior.notes === row.notes) continue
    if (!was && row.status === 'pending' && row.notes === '' && row.agentId === '') continue
    const seen = new Set(parseNotes(prior.notes).map((item) => formatNotes([item])))
    const added = parseNotes(row.notes).filter((item) => !seen.has(formatNotes([item])))
    agents.push({
      id,
      name: names.get(id) ?? null,
      from: was ? prior.status : null,
      to: row.status,
      agentId: row.agentId || null,
      duration: row.duration || null,
      notes: added.length > 0 ? formatNotes(added) : null
    })
  }
  const beforeMeta: TableMeta = before ? readMeta(before) : {}
  const afterMeta = readMeta(after)
  const change = (key: keyof TableMeta): MetaChange | null => {
    const from = beforeMeta[key] || null
    const to = afterMeta[key] || null
    return from === to ? null : {from, to}
  }
  return {agents, build: change('build'), integration: change('integration'), started: change('started'), lastUpdated: change('lastUpdated')}
}
