import type {Plan} from '../plan/types.js'
import {appendStateSection} from './append-state-section.js'
import type {Produced} from './commit-file.js'
import {DamagedTableError} from './damaged-table-error.js'
import {formatStamp, stampFormat} from './format-stamp.js'
import {locateStateSection} from './locate-state-section.js'
import {mergeOutside, outsideOf, type Outside} from './merge-outside.js'
import {mergeState} from './merge-state.js'
import {readSection} from './read-section.js'
import {renderStamped} from './render-stamped.js'
import {staleBase} from './stale-base.js'
import type {StateLayout} from './state-layout.js'
import {emptyRow, readMeta, readRows, type RowState, type TableMeta, type TableState} from './table-state.js'
import type {WrittenVersions} from './written-versions.js'

export interface SavedContext {
  /** What messages call the plan. */
  file: string
  parse: (text: string) => Plan
  /** Whether the file had a state table since the store opened it: one that goes away is damage, not absence. */
  hadTable: boolean
  versions: WrittenVersions
  /** The table as mdplan last wrote it, and how it was written. */
  base: TableState
  layout: StateLayout | undefined
  /** The plan's agents, in order. */
  agents: readonly string[]
  now: () => Date
}

/**
 * The new bytes of a file someone else wrote (or whose table waits for a
 * merge): its state section read alone, merged cell by cell into `mine`, and
 * written back in their layout, their bytes kept. A section mdplan wrote
 * before, however long ago, is a stale buffer: nothing in it is an edit. The
 * text around the section is merged line by line. Throws DamagedTableError
 * when the table no longer reads as one. `from`: a version the save may have
 * started from, besides those mdplan wrote (the file it replaced, read).
 */
export function mergeSaved(context: SavedContext, mine: TableState, seen: Buffer, running: ReadonlySet<string>, from?: Buffer): Produced {
  const {versions} = context
  const bom = seen[0] === 0xef && seen[1] === 0xbb && seen[2] === 0xbf
  const text = seen.toString('utf8', bom ? 3 : 0)
  const read = readSection(text, context.parse, context.layout)
  if (!read || !('layout' in read)) {
    if (context.hadTable || (read && !read.noTable)) {
      throw DamagedTableError.at(context.file, text, read ?? {offset: text.length, reason: 'the `## Execution State` section is gone: put it back (undo the edit, or take it from git)'})
    }
    return append(context, mine, text, bom, running)
  }
  const {layout} = read
  const section = text.slice(layout.start, layout.end)
  const theirs = {rows: read.rows, meta: read.meta}
  const since = versions.editsAfter(section)
  const ours = versions.outsides[0]
  // The text around the table as it is now: the save touched the table alone (an undo does), not an older buffer.
  const current = ours !== undefined && text.slice(0, layout.start) === ours.before && text.slice(layout.end) === ours.after
  const stale = since && staleBase(theirs, mine, since, current)
  const base = stale ? stale.base : versions.parentOf(theirs, context.base)
  const merged = mergeState(base, mine, theirs, running)
  const state = withAgents(context.agents, merged.state.rows, merged.state.meta)
  const around = ours === undefined ? undefined : mergeOutside(outsideOf(text, layout.start, layout.end), ours, versions.outsides, from ? outsidesOf(from) : [])
  const before = around?.before ?? text.slice(0, layout.start)
  const after = around?.after ?? text.slice(layout.end)
  const prefix = bom ? '\uFEFF' + before : before
  const head = Buffer.byteLength(prefix)
  // Their bytes around the section stand: copy them, do not encode the whole text again.
  const tail = !around || around.theirs ? (bom ? 3 : 0) + Buffer.byteLength(text.slice(0, layout.end)) : undefined
  const stamp = {layout: {...layout, atEof: after === ''}, state, file: read.meta, given: context.base.meta.lastUpdated, now: context.now}
  const produced = renderStamped(
    stamp,
    (rendered) => rendered.text === section,
    (rendered) => {
      const middle = Buffer.from(rendered.text, 'utf8')
      const data = tail === undefined ? Buffer.concat([Buffer.from(prefix, 'utf8'), middle, Buffer.from(after, 'utf8')]) : Buffer.concat([seen.subarray(0, head), middle, seen.subarray(tail)])
      return {data, sectionBytes: {start: head, end: head + middle.length}}
    }
  )
  produced.outside = {before, after}
  const shift = before.length - layout.start
  if (produced.layout) produced.layout = {...produced.layout, start: produced.layout.start + shift, end: produced.layout.end + shift}
  const notices = [...(stale ? staleNotices(context.file, section, stale) : []), ...restoredNotice(context, merged.restored, text)]
  return {...produced, humanEdits: merged.humanEdits, conflicts: merged.conflicts, ...(notices.length > 0 && {notices})}
}

/**
 * Rows a save deleted that the write put back, said once per save: the row of an agent the plan has
 * comes back (the table keeps a row for every agent), so the person learns how to remove or skip one.
 * Only agents the saved plan still defines are named (the plan is parsed for it: only after such a save).
 */
function restoredNotice(context: SavedContext, restored: readonly string[], text: string): Array<{text: string}> {
  if (restored.length === 0) return []
  const defined = new Set(context.parse(text).agents.map((agent) => agent.id))
  const named = restored.filter((agent) => defined.has(agent))
  if (named.length === 0) return []
  const list = named.length > 12 ? `${named.slice(0, 12).join(', ')} and ${named.length - 12} more` : named.join(', ')
  const one = named.length === 1 ? named[0]! : undefined
  return [
    {
      text: `${context.file}: a save deleted the ${one ? `row of ${one}` : `rows of ${list}`} from the Execution State table; mdplan put ${one ? 'it' : 'them'} back, as the table keeps a row for every agent under ## Agents. To remove ${one ?? 'an agent'}, delete its \`### ${one ?? '<ID>'}:\` section under ## Agents; to skip ${one ? 'it' : 'one'}, set its Status to completed`
    }
  ]
}

/** What a stale save is told: the undos, and once per version the rows whose Status it would have set back. */
function staleNotices(file: string, section: string, stale: {notices: string[]; kept: string[]}): Array<{text: string; once?: string}> {
  const notices: Array<{text: string; once?: string}> = stale.notices.map((text) => ({text}))
  if (stale.kept.length > 0) {
    const named = stale.kept.length > 12 ? `${stale.kept.slice(0, 12).join(', ')} and ${stale.kept.length - 12} more` : stale.kept.join(', ')
    notices.push({
      text: `${file}: a save brought back an Execution State table mdplan wrote or read earlier (an editor's buffer loaded before, or a git checkout); the table keeps mdplan's rows for ${named} (a stale buffer is not an edit): to run an agent again, set its Status to pending`,
      once: section
    })
  }
  return notices
}

/** The file has no state table yet: add the section (or the table to it). */
function append(context: SavedContext, mine: TableState, text: string, bom: boolean, running: ReadonlySet<string>): Produced {
  const plan = context.parse(text)
  const merged = mergeState(context.base, mine, {rows: readRows(plan), meta: readMeta(plan)}, running)
  const state = withAgents(context.agents, merged.state.rows, merged.state.meta)
  // The new section writes these defaults: record them, or the next write takes them for a person's edit.
  state.meta.started ??= ''
  state.meta.build ??= 'not yet run'
  state.meta.lastUpdated = formatStamp(context.now(), stampFormat(state.meta.started))
  const next = appendStateSection(plan, state)
  // Its layout, so the next write splices its rows as it does any table mdplan wrote (without it, the next
  // write read the file as a person's save of an earlier version and warned of a stale buffer no one saved).
  const read = readSection(next, context.parse)
  const layout = read && 'layout' in read ? read.layout : undefined
  return {data: Buffer.from(bom ? '\uFEFF' + next : next, 'utf8'), text: next, layout, state, humanEdits: merged.humanEdits, conflicts: merged.conflicts, clean: true}
}

/** The text around the state section of `bytes`, when it is found without a parse. */
function outsidesOf(bytes: Buffer): Outside[] {
  const text = bytes.toString('utf8', bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0)
  const span = locateStateSection(text)
  return span ? [outsideOf(text, span.start, span.end)] : []
}

/** A row for every agent of the plan, in plan order, then the rows it does not know. */
export function withAgents(agents: readonly string[], found: ReadonlyMap<string, RowState>, meta: TableMeta): TableState {
  const rows = new Map<string, RowState>()
  for (const agent of agents) rows.set(agent, found.get(agent) ?? emptyRow())
  for (const [agent, row] of found) if (!rows.has(agent)) rows.set(agent, row)
  return {rows, meta}
}
