import {mkdirSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {atomicWrite} from '../store/atomic-write.js'
import type {AgentHistory} from './history-types.js'

/** Write the history and, beside it, `current-agent-id.txt`; each atomically, so a reader never sees half a file. */
export function writeHistory(file: string, history: AgentHistory, currentAgentId: string | undefined): {currentFile?: string} {
  mkdirSync(dirname(file), {recursive: true})
  atomicWrite(file, Buffer.from(JSON.stringify(history, null, 2) + '\n'), {mode: 0o644})
  if (currentAgentId === undefined) return {}
  const currentFile = join(dirname(file), 'current-agent-id.txt')
  atomicWrite(currentFile, Buffer.from(currentAgentId + '\n'), {mode: 0o644})
  return {currentFile}
}
