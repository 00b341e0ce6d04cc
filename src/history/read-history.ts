import {fileProblem, readRegularFile} from '../util/read-regular-file.js'
import type {AgentHistory} from './history-types.js'

/** The history file, `undefined` when there is none yet; an Error naming the file when it is not a history. */
export async function readHistory(file: string): Promise<AgentHistory | undefined> {
  let text: string
  try {
    text = (await readRegularFile(file)).toString('utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined
    // A FIFO at --out would block the read forever: it is refused like any path that is not a file.
    throw new Error(`${file} ${fileProblem(error)}`)
  }
  if (text.trim() === '') return undefined
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new Error(`${file} is not valid JSON (${(error as Error).message})`)
  }
  const record = value as Partial<AgentHistory> | null
  if (typeof record !== 'object' || record === null || Array.isArray(record) || !Array.isArray(record.entries ?? [])) {
    throw new Error(`${file} is not an agent history (expected {"version", "max_entries", "entries": […]})`)
  }
  return {...record, version: String(record.version ?? ''), max_entries: typeof record.max_entries === 'number' ? record.max_entries : 50, entries: record.entries ?? []}
}
