import {parsePlan} from '../plan/parse-plan.js'
import type {Plan, Section, StateRow} from '../plan/types.js'
import {renderMermaid} from '../report/render-mermaid.js'
import {dagSectionTitle, mermaidMarker, upsertMermaidBlock} from '../report/upsert-mermaid-block.js'
import type {TableState} from '../store/table-state.js'
import {mergeFile} from './merge-file.js'
import {mergeOpenQuestions} from './merge-open-questions.js'
import {mergeStateSection} from './merge-state-section.js'

export interface PlanMerge {
  /** The merged file, byte-order mark included when it should have one. */
  text: string
  /** Conflict regions of the ordinary text merge (outside the regions mdplan owns). */
  textConflicts: number
  /** Agents whose row could not be reconciled. */
  rowConflicts: Array<{agent: string; reason: string}>
  /** Agents whose open question both sides changed. */
  questionConflicts: string[]
  clean: boolean
}

// Lines no person writes: the owned regions stand in as these during the text merge.
const stateToken = '\u0001mdplan-merge: Execution State\u0001'
const questionsToken = '\u0001mdplan-merge: Open Questions\u0001'
const graphToken = '%% mdplan-merge: graph redrawn after the merge'

/**
 * Merge three versions of a plan as a git merge driver does. The regions
 * mdplan owns are cut out and merged by their own rules (the state table row
 * by row, open questions by agent, the Mermaid block redrawn from the merged
 * table); the rest is an ordinary text merge. CRLF, BOM and the final newline
 * are kept, and no byte outside the regions is reformatted.
 */
export async function mergePlans(baseSource: string, oursSource: string, theirsSource: string, file = 'plan.md'): Promise<PlanMerge> {
  const [base, ours, theirs] = [baseSource, oursSource, theirsSource].map((source) => parsePlan(source, file)) as [Plan, Plan, Plan]
  const masks = [base, ours, theirs].map(mask) as [string, string, string]
  const text = await mergeFile(...masks)

  let merged = text.text
  // The agents of the merged plan (one side's when the text merge took it whole), for the notes derived from them.
  const agentsPlan = merged === masks[1] ? ours : merged === masks[2] ? theirs : parsePlan(merged, file)
  const agents = agentsPlan.agents.length > 0 ? agentsPlan : ours
  // As the run's own default (run-plan's defaultMaxAttempts): the merge knows no `--max-attempts`.
  const state = mergeStateSection(base, ours, theirs, {agents: agents.agents, maxAttempts: agents.settings.maxAttempts ?? 3})
  // No table on either side: the section is merged as text like the rest.
  const plain = state ? undefined : await mergeFile(region(base, base.state?.section), region(ours, ours.state?.section), region(theirs, theirs.state?.section))
  const stateText = state?.text ?? plain!.text
  const textConflicts = text.conflicts + (plain?.conflicts ?? 0)
  merged = merged.split(stateToken + tokenEnd(ours, ours.state?.section)).join(stateText)
  merged = merged.split(stateToken).join(stateText)

  const questions = mergeOpenQuestions(optional(base, base.openQuestions), optional(ours, ours.openQuestions), optional(theirs, theirs.openQuestions))
  merged = merged.split(questionsToken + tokenEnd(ours, ours.openQuestions?.section)).join(questions.text ?? '')
  merged = merged.split(questionsToken).join(questions.text ?? '')

  if (merged.includes(graphToken)) merged = redrawGraph(merged, file, state?.state)

  const bom = ours.bom === base.bom ? theirs.bom : ours.bom
  const rowConflicts = (state?.conflicts ?? []).map(({agent, reason}) => ({agent, reason}))
  return {
    text: (bom ? '\ufeff' : '') + merged,
    textConflicts,
    rowConflicts,
    questionConflicts: questions.conflicts,
    clean: textConflicts === 0 && rowConflicts.length === 0 && questions.conflicts.length === 0
  }
}

/** The plan's text with each owned region replaced by a fixed line, the same in every version. */
function mask(plan: Plan): string {
  const edits: Array<{start: number; end: number; text: string}> = []
  const {state, openQuestions} = plan
  if (state) edits.push({start: state.section.start.offset, end: state.section.end.offset, text: stateToken + tokenEnd(plan, state.section)})
  if (openQuestions) {
    edits.push({start: openQuestions.section.start.offset, end: openQuestions.section.end.offset, text: questionsToken + tokenEnd(plan, openQuestions.section)})
  }
  const dag = dagSection(plan)
  if (dag && dag.body.includes(mermaidMarker)) {
    const sectionText = plan.text.slice(dag.section.start.offset, dag.section.end.offset)
    edits.push({start: dag.section.start.offset, end: dag.section.end.offset, text: upsertMermaidBlock(sectionText, `flowchart TD\n${graphToken}\n`, plan.eol)})
  }
  let text = plan.text
  for (const edit of edits.sort((a, b) => b.start - a.start)) text = text.slice(0, edit.start) + edit.text + text.slice(edit.end)
  return text
}

/** The token line ends as the region did: with the plan's line ending, or not at all at the end of a file without a final newline. */
function tokenEnd(plan: Plan, span: Section['section'] | undefined): string {
  if (!span) return plan.eol
  return /\n$/.test(plan.text.slice(span.start.offset, span.end.offset)) ? plan.eol : ''
}

function region(plan: Plan, span: Section['section'] | undefined): string {
  return span ? plan.text.slice(span.start.offset, span.end.offset) : ''
}

function optional(plan: Plan, section: Section | undefined): string | undefined {
  return section ? region(plan, section.section) : undefined
}

function dagSection(plan: Plan): Section | undefined {
  return plan.sections.find((section) => section.title.trim().toLowerCase() === dagSectionTitle.toLowerCase())
}

/** The placeholder graph replaced by the graph of the merged plan, its statuses from the merged table. */
function redrawGraph(text: string, file: string, state: TableState | undefined): string {
  const plan = parsePlan(text, file)
  // Conflict markers end a table early for the parser: the statuses come from the merge itself.
  if (state && plan.state?.table) {
    const rows = [...state.rows].map(([agent, row]) => ({agent, status: row.status}) as StateRow)
    plan.state = {...plan.state, table: {...plan.state.table, rows}}
  }
  const [, ...rest] = renderMermaid(plan).replace(/\n$/, '').split('\n')
  const eol = plan.eol
  return text.replace(new RegExp(`^([ \\t]*)${escape(graphToken)}(\\r?\\n)`, 'm'), (_, indent: string, end: string) =>
    rest.map((line) => (line === '' ? '' : indent + line)).join(eol) + end
  )
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
