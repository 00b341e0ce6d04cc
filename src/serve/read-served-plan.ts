import {loadPlan} from '../plan/load-plan.js'
import type {Plan} from '../plan/types.js'
import {readRegularFileSync} from '../util/read-regular-file.js'
import {locateStateSection, type SectionSpan} from '../store/locate-state-section.js'
import {readStateSection} from '../store/read-state-section.js'
import {withAgents} from '../store/merge-saved.js'
import type {StateLayout} from '../store/state-layout.js'
import {tableStateFromPlan, type TableState} from '../store/table-state.js'

/** A plan as the page's server last read it: the parse, and the table as the file has it now. */
export interface ServedRead {
  plan: Plan
  table: TableState
  /** The text the table was read from (no BOM), and where its Execution State section is in it. */
  text: string
  span?: SectionSpan
  layout?: StateLayout
  /** Whether the plan was parsed for this read (false: only its table was read). */
  parsed: boolean
}

/**
 * Read `file` for the page. A run rewrites the table hundreds of times a second and the agents' definitions
 * hardly ever: when the text outside the Execution State section is what `last` parsed, the parse is kept and
 * only the section's lines are read (`readStateSection`, a few ms at 1,000 agents, against about 100 ms for a
 * parse). Anything else (another text outside it, a two-file plan, a section only the parser judges, a damaged
 * table) is parsed whole, as `loadPlan` does, whose errors are this function's.
 */
export async function readServedPlan(file: string, last?: ServedRead): Promise<ServedRead> {
  const quick = last && !last.plan.promptsFile && last.span ? tableOnly(file, last, last.span) : undefined
  if (quick) return quick
  const plan = await loadPlan(file, {cache: false})
  const span = locateStateSection(plan.text) ?? undefined
  return {plan, table: tableStateFromPlan(plan), text: plan.text, ...(span && {span}), parsed: true}
}

function tableOnly(file: string, last: ServedRead, was: SectionSpan): ServedRead | undefined {
  let text: string
  try {
    text = readRegularFileSync(file).toString('utf8')
  } catch {
    return undefined
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  if (text.includes('\0')) return undefined
  const span = locateStateSection(text)
  if (!span) return undefined
  // Byte for byte the text the plan was parsed from, but for the section.
  if (span.start !== was.start || text.slice(0, span.start) !== last.text.slice(0, was.start) || text.slice(span.end) !== last.text.slice(was.end)) return undefined
  const read = readStateSection(text, span, last.layout)
  if (!read || !('layout' in read)) return undefined
  const table = withAgents(
    last.plan.agents.map((agent) => agent.id),
    read.rows,
    read.meta
  )
  return {plan: last.plan, table, text, span, layout: read.layout, parsed: false}
}
