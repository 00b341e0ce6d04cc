import type {Plan} from '../plan/types.js'
import {locateStateSection} from './locate-state-section.js'
import {conflictedSection} from './conflicted-section.js'
import {readStateSection, type SectionRead} from './read-state-section.js'
import type {TableDamage} from './conflicted-section.js'
import {stateLayout, type StateLayout} from './state-layout.js'
import {readMeta, readRows} from './table-state.js'

/** What a file's state section holds: its table, a damage, or nothing (no section). */
export type SectionFound = SectionRead | (TableDamage & {noTable: boolean}) | undefined

/**
 * Read the state section of `text` (no BOM): from its lines when they are
 * plain (the usual case: a few milliseconds at 1000 agents), through `parse`
 * (the whole plan) when the text holds something only the parser judges.
 * `known`: the layout mdplan last wrote, whose rows need not be read again.
 */
export function readSection(text: string, parse: (text: string) => Plan, known?: StateLayout): SectionFound {
  const span = locateStateSection(text)
  if (span === undefined) return undefined
  if (span) {
    const read = readStateSection(text, span, known)
    if (read && 'layout' in read) return read
    if (read) return {...read, noTable: !text.slice(span.start, span.end).includes('|')}
  }
  const plan = parse(text)
  if (plan.state) {
    const conflicted = conflictedSection(text, {start: plan.state.section.start.offset, end: plan.state.section.end.offset})
    if (conflicted) return {...conflicted, noTable: false}
  }
  const layout = stateLayout(plan)
  if (layout) return {layout, rows: readRows(plan), meta: readMeta(plan)}
  if (!plan.state) return undefined
  const malformed = plan.messages.find((message) => message.rule === 'malformed-table')
  const start = plan.state.section.start.offset
  const noTable = !text.slice(start, plan.state.section.end.offset).includes('|')
  if (!malformed?.place || !('start' in malformed.place)) return {offset: start, reason: 'the section has no table any more: put the `| Agent | Status | … |` table back (undo the edit, or take it from git)', noTable}
  return {offset: malformed.place.start.offset ?? start, reason: malformed.reason.replace(/^malformed Execution State table: /, ''), noTable}
}
