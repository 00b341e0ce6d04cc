import {open} from 'node:fs/promises'
import {readdirSync} from 'node:fs'
import {logFile} from '../layout/log-file.js'
import {logFolder} from '../layout/log-folder.js'

export interface LogChunk {
  /** The bytes from `from`, as text (ANSI escapes taken out: the page shows text, never a terminal's codes). */
  text: string
  /** Where the next read starts. */
  next: number
  /** The log's size when read. */
  size: number
}

/** Escape sequences (CSI, OSC) and lone control characters but newline and tab. */
const escapes = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-_]|[\u0000-\u0008\u000b-\u001f\u007f]/g

/** Text of a terminal's output with its escape codes taken out (pure). */
export function plainText(text: string): string {
  return text.replace(escapes, '')
}

/**
 * Up to `max` bytes of one attempt's log from `from` (negative: that many from the end): a bounded window,
 * however large the log. The path comes from the plan's log folder and a checked agent and attempt, never
 * from the request. Undefined when the log does not exist.
 */
export async function readLogChunk(planFile: string, agent: string, attempt: number, from: number, max = 256 * 1024): Promise<LogChunk | undefined> {
  let handle
  try {
    handle = await open(logFile(planFile, agent, attempt), 'r')
  } catch {
    return undefined
  }
  try {
    const {size} = await handle.stat()
    const start = Math.max(0, Math.min(size, from < 0 ? size + from : from))
    const length = Math.min(max, size - start)
    const buffer = Buffer.alloc(length)
    const {bytesRead} = await handle.read(buffer, 0, length, start)
    // A window may cut a character: the page gets what decodes, and the next read starts where it stopped.
    const end = start + bytesRead === size ? bytesRead : wholeCharacters(buffer, bytesRead)
    return {text: plainText(buffer.toString('utf8', 0, end)), next: start + end, size}
  } finally {
    await handle.close()
  }
}

/** The attempts with a log, by number, for one agent. */
export function logAttempts(planFile: string, agent: string): number[] {
  let names: string[]
  try {
    names = readdirSync(logFolder(planFile))
  } catch {
    return []
  }
  const prefix = `${agent}.`
  return names
    .filter((name) => name.startsWith(prefix) && /^\d+\.log$/.test(name.slice(prefix.length)))
    .map((name) => Number(name.slice(prefix.length, -4)))
    .sort((a, b) => a - b)
}

/** How many of the first `length` bytes end on a whole UTF-8 character. */
function wholeCharacters(buffer: Buffer, length: number): number {
  let lead = length - 1
  while (lead > 0 && lead > length - 4 && (buffer[lead]! & 0xc0) === 0x80) lead--
  const byte = buffer[lead] ?? 0
  const needs = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1
  return lead + needs <= length ? length : lead
}
