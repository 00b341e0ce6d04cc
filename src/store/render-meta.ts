import {normalizeCell} from './escape-cell.js'
import {renderOwnedLines} from './render-owned-lines.js'
import {isWaitLine} from '../plan/wait-line.js'
import {isBudgetLine} from '../plan/budget-line.js'
import type {PostLine, StateLayout} from './state-layout.js'
import {metaKeys, type TableState} from './table-state.js'

/**
 * Meta lines: values replaced in place; missing ones added in the order Started, Last updated, Build,
 * Integration; then the budget line and the wait lines (render-owned-lines.ts).
 */
export function renderMeta(layout: StateLayout, desired: TableState): PostLine[] {
  const {eol} = layout
  const waited = renderOwnedLines(renderKeyLines(layout, desired), desired.meta.waits, isWaitLine, eol)
  return renderOwnedLines(waited, desired.meta.budget, isBudgetLine, eol)
}

function renderKeyLines(layout: StateLayout, desired: TableState): PostLine[] {
  const {eol} = layout
  const post = layout.post.slice()
  const present = new Map(post.map((line, i) => [line.meta?.name, i] as const))
  const missing: Array<(typeof metaKeys)[number]> = []
  for (const entry of metaKeys) {
    const [name] = entry
    const value = desired.meta[name]
    if (value === undefined) continue
    const at = present.get(name)
    if (at === undefined) {
      missing.push(entry)
      continue
    }
    const line = post[at]!
    const meta = line.meta!
    const old = line.text.slice(meta.valueStart, meta.valueEnd)
    const shown = escapeMeta(value)
    if (old === shown || (old === '—' && shown === '—')) continue
    const text = line.text.slice(0, meta.valueStart) + shown + line.text.slice(meta.valueEnd)
    post[at] = {...line, text, meta: {name, valueStart: meta.valueStart, valueEnd: meta.valueStart + shown.length}}
  }
  if (missing.length === 0) return post

  const make = ([name, , label]: (typeof metaKeys)[number]): PostLine => {
    const shown = escapeMeta(desired.meta[name]!)
    return {text: `${label}: ${shown}`, eol, meta: {name, valueStart: label.length + 2, valueEnd: label.length + 2 + shown.length}}
  }
  const anyMeta = post.some((line) => line.meta)
  if (!anyMeta) {
    // A block right after the table, set off by blank lines.
    const block: PostLine[] = [{text: '', eol}, ...missing.map(make)]
    const next = post[0]
    if (next && next.text.trim() !== '') block.push({text: '', eol})
    else if (!next && !layout.atEof) block.push({text: '', eol})
    const lastTable = layout.rows[layout.rows.length - 1] ?? layout.delimiter
    // The table ended the file without a final newline: so does the block.
    if (lastTable.eol === '' && post.length === 0) block[block.length - 1] = {...block[block.length - 1]!, eol: ''}
    return [...block, ...post]
  }
  for (const entry of missing) {
    const order = metaKeys.indexOf(entry)
    let at = -1
    for (let k = order - 1; k >= 0 && at === -1; k--) {
      const i = post.findIndex((line) => line.meta?.name === metaKeys[k]![0])
      if (i !== -1) at = i + 1
    }
    for (let k = order + 1; k < metaKeys.length && at === -1; k++) {
      const i = post.findIndex((line) => line.meta?.name === metaKeys[k]![0])
      if (i !== -1) at = i
    }
    const line = make(entry)
    const before = post[at - 1]
    if (at === post.length && before && before.eol === '') {
      post[at - 1] = {...before, eol}
      line.eol = ''
    }
    post.splice(at, 0, line)
  }
  return post
}

function escapeMeta(value: string): string {
  const line = normalizeCell(value)
  return line === '' ? '—' : line
}
