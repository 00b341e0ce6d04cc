/** One agent in `.planning/agent-history.json`, schema version 1.2 (the fields GSD-style workflows already read). */
export interface HistoryEntry {
  agent_id: string
  task_description: string
  phase: string | null
  plan: string | null
  segment: number | null
  /** When the agent was first recorded as spawned (ISO 8601). */
  timestamp: string
  /** `spawned` (running or waiting for an answer), `completed`, `failed`; other tools also write `interrupted`, `resumed`. */
  status: string
  completion_timestamp: string | null
  execution_mode: string
  parallel_group: string | null
  granularity: string
  depends_on: string[]
  files_modified: string[]
  checkpoints_skipped: number
  task_results: unknown
  /** Fields other tools wrote are kept. */
  [key: string]: unknown
}

export interface AgentHistory {
  version: string
  max_entries: number
  entries: HistoryEntry[]
  [key: string]: unknown
}

export const historyVersion = '1.2'
export const defaultMaxEntries = 50
