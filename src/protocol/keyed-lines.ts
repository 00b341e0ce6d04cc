/**
 * Reading the loosely formatted blocks agents end with (`RESULT: …`, a
 * Completion Report): decoration-tolerant keys (`**Context:**`, `## Checkpoint`,
 * `- Files changed:`) and the text that belongs to each.
 */

/** A line without Markdown decoration: heading marks, blockquote, bold/italic markers, backticks around the whole line. */
export function plainLine(line: string): string {
  return line
    .replace(/^\s*(?:#{1,6}\s+|>\s?)/, '')
    .replace(/\*\*|__/g, '')
    .replace(/^`([^`]*)`$/, '$1')
    .trim()
}

export const resultLine = /^RESULT\s*:\s*\**\s*(SUCCESS|ERROR|QUESTION)\b\**\s*[:.\-\u2014\u2013]*\s*(.*)$/i

const knownKeys = [
  'question',
  'context',
  'resume state',
  'resume_state',
  'resume-state',
  'options',
  'description',
  'details',
  'summary',
  'files changed',
  'files modified',
  'changed files',
  'files',
  'checkpoint',
  'discoveries'
]
const keyPattern = new RegExp(`^(?:[-*+]\\s+)?(${knownKeys.map((key) => key.replace(/ /g, '\\s+')).join('|')})\\s*:\\s*(.*)$`, 'i')

/** `{key, value}` when the line starts a known key (key lower-cased, single-spaced). */
export function keyOf(line: string): {key: string; value: string} | undefined {
  // Indented lines belong to the value above (a YAML-ish resume state may say `files: 2`).
  if (/^\s{2,}/.test(line)) return undefined
  const plain = plainLine(line)
  const option = /^(?:[-*+]\s+)?option\s+\w+\s*[:.)-]\s*(.*)$/i.exec(plain)
  if (option) return {key: 'option', value: option[1]!.trim()}
  const match = keyPattern.exec(plain)
  if (!match) return undefined
  return {key: match[1]!.toLowerCase().replace(/[\s_-]+/g, ' '), value: match[2]!.trim()}
}

export interface KeyedValue {
  key: string
  /** The text on the key's line. */
  inline: string
  /** The lines after it, up to the next key, RESULT line or heading. */
  lines: string[]
}

/** Group lines under the keys they follow; lines before the first key are under `''`. Fences are kept whole. */
export function keyedValues(lines: readonly string[]): KeyedValue[] {
  const values: KeyedValue[] = [{key: '', inline: '', lines: []}]
  let fence: string | undefined
  for (const line of lines) {
    const current = values[values.length - 1]!
    if (fence !== undefined) {
      current.lines.push(line)
      if (new RegExp(`^\\s*${fence}[\`~]*\\s*$`).test(line)) fence = undefined
      continue
    }
    const opening = /^\s*(`{3,}|~{3,})/.exec(line)
    if (opening) {
      fence = opening[1]!
      current.lines.push(line)
      continue
    }
    const key = keyOf(line)
    if (key) {
      values.push({key: key.key, inline: key.value, lines: []})
      continue
    }
    if (resultLine.test(plainLine(line)) || /^\s*#{1,6}\s/.test(line)) {
      values.push({key: '', inline: '', lines: []})
      continue
    }
    current.lines.push(line)
  }
  return values
}

/** The value as one block of text: inline part and following lines, blank edges trimmed, common indent removed. */
export function blockText(value: KeyedValue): string {
  const lines = [...(value.inline === '' ? [] : [value.inline]), ...value.lines]
  while (lines.length > 0 && lines[0]!.trim() === '') lines.shift()
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop()
  // YAML-style `Resume State: |`.
  if (lines[0] !== undefined && /^[|>][-+]?$/.test(lines[0].trim())) lines.shift()
  const indent = Math.min(...lines.filter((line) => line.trim() !== '').map((line) => /^[ \t]*/.exec(line)![0].length))
  return lines.map((line) => line.slice(Number.isFinite(indent) ? indent : 0)).join('\n')
}

/** The inside of a text that is one fenced code block, else the text. */
export function unfence(text: string): string {
  const match = /^(`{3,}|~{3,})[^\n]*\n([\s\S]*?)\n?\1[`~]*\s*$/.exec(text.trim())
  return match ? match[2]! : text
}

const marker = /^\s*(?:[-*+]|\d+[.)]|\(?[a-zA-Z]\)|Option\s+\w+\s*[:.)-]|\[[ xX]\])\s+/

/** List items (`- a`, `1. a`, `a) a`, `Option 1: a`), or for a plain block, its non-empty lines. */
export function listItems(text: string): string[] {
  const lines = text.split('\n').filter((line) => line.trim() !== '')
  const items: string[] = []
  const anyMarked = lines.some((line) => marker.test(line))
  for (const line of lines) {
    if (anyMarked) {
      if (marker.test(line)) items.push(line.replace(marker, '').replace(/\*\*/g, '').trim())
      else if (items.length > 0) items[items.length - 1] += ` ${line.trim()}`
    } else items.push(line.replace(/\*\*/g, '').trim())
  }
  return items.filter((item) => item !== '' && !isNone(item))
}

/** `None`, `n/a`, `—`: an empty value written out. */
export function isNone(text: string): boolean {
  return /^(?:none\.?|n\/a|-|\u2014|nothing\.?|\(none\))$/i.test(text.trim())
}

/** One line of at most `max` characters. */
export function oneLine(text: string, max = 160): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}
