import type {Agent, Plan, Status} from '../plan/types.js'
import {attemptsInNotes, getNote} from '../plan/notes.js'
import {readAnswers, type OpenQuestion} from '../protocol/read-answers.js'
import {statusCell, tableStateFromPlan, type RowState, type TableState} from '../store/table-state.js'
import {rowEditsFor, type RowEdit} from './row-edit.js'

/** One agent as the page shows it: a row of the grid and a node of the DAG. */
export interface AgentView {
  id: string
  name: string
  /** The Status cell as written (a held agent's own text, `skipped`). */
  status: string
  /** Where the grid sorts it: 0 needs you (an open question, work awaiting review, failed), 1 running, 2 waiting, 3 done. */
  rank: number
  /** When it entered this status, as far as the server knows (ms since the epoch), or undefined. */
  since?: number
  runner: string
  host: string
  job: string
  attempt: number
  /** The open question, the last failure, or the first other note: one line. */
  line: string
  dependsOn: string[]
  notes: string
  /** The buttons its row takes (`rowEdit`). */
  edits: RowEdit[]
  /** Its work awaits a person's review: the row takes approve and reject (`reviewRow`). */
  review: boolean
}

export interface QuestionView {
  agent: string
  question: string
  context: string
  options: string[]
  answer?: string
}

export interface PlanView {
  title: string
  file: string
  agents: AgentView[]
  questions: QuestionView[]
  counts: Record<string, number>
  meta: {started?: string; lastUpdated?: string; build?: string; integration?: string}
  /** The DAG's shape (ids and edges): the page asks for a new layout only when it changes. */
  shape: string
}

/** What the plan file does not say: attempts the logs show, and when each agent's status was first seen. */
export interface ViewExtras {
  attempts?: ReadonlyMap<string, number>
  since?: ReadonlyMap<string, number>
  /** The table as the file has it now, when read apart from the parse (`readServedPlan`); else the parse's. */
  table?: TableState
  /**
   * Views made before from the same parse, by agent id (the caller's, emptied when it parses again): an agent
   * whose row, question and attempts read as before keeps its view object, and costs a key.
   */
  memo?: Map<string, {key: string; view: AgentView}>
}

const ranks: Record<Status, number> = {needs_input: 0, awaiting_review: 0, failed: 0, in_progress: 1, pending: 2, completed: 3}

/** The page's view of one parsed plan: pure, no clock, no file system. */
export function planView(plan: Plan, file: string, extras: ViewExtras = {}): PlanView {
  const state = extras.table ?? tableStateFromPlan(plan)
  const questions = readAnswers(plan)
  const asked = new Map(questions.map((question) => [question.agent, question]))
  const counts: Record<string, number> = {}
  const defaultRunner = plan.settings.runner ?? 'claude'
  const agents = plan.agents.map((agent): AgentView => {
    const row = state.rows.get(agent.id)!
    const status = statusCell(row)
    counts[status] = (counts[status] ?? 0) + 1
    const question = asked.get(agent.id)
    const key = [status, row.status, row.notes, extras.attempts?.get(agent.id), extras.since?.get(agent.id), question?.question, question?.answer].join('\0')
    const kept = extras.memo?.get(agent.id)
    if (kept && kept.key === key) return kept.view
    const view = agentView(agent, row, question, extras, defaultRunner)
    extras.memo?.set(agent.id, {key, view})
    return view
  })
  return {
    title: plan.title ?? file,
    file,
    agents,
    questions: questions.map(({agent, question, context, options, answer}) => ({agent, question, context, options, ...(answer !== undefined && {answer})})),
    counts,
    meta: state.meta,
    shape: planShape(agents)
  }
}

/** One agent's row of the grid and node of the DAG. */
function agentView(agent: Agent, row: RowState, question: OpenQuestion | undefined, extras: ViewExtras, defaultRunner: string): AgentView {
  const status = statusCell(row)
  const failures = attemptsInNotes(row.notes)
  const open = question !== undefined && question.answer === undefined
  const job = getNote(row.notes, 'job') ?? ''
  const since = extras.since?.get(agent.id)
  return {
    id: agent.id,
    name: agent.name,
    status,
    rank: open || row.held !== undefined ? 0 : ranks[row.status],
    ...(since !== undefined && {since}),
    runner: agent.fields.runner?.value ?? defaultRunner,
    host: agent.fields.host?.value ?? getNote(row.notes, 'host') ?? '',
    job,
    attempt: Math.max(extras.attempts?.get(agent.id) ?? 0, failures.length > 0 ? failures[failures.length - 1]!.attempt : 0),
    line: oneLine(lineOf(row, question?.question, failures[failures.length - 1]?.reason)),
    dependsOn: agent.dependsOn.map((ref) => ref.id),
    notes: row.notes,
    edits: rowEditsFor(row),
    review: row.held === undefined && row.status === 'awaiting_review'
  }
}

/** The ids and edges, one string: two plans of one shape lay out alike. */
export function planShape(agents: ReadonlyArray<Pick<AgentView, 'id' | 'dependsOn'>>): string {
  return agents.map((agent) => `${agent.id}<${agent.dependsOn.join(',')}`).join('\n')
}

/** The row's one line: its open question, its last failure, that its work awaits review, or its first note. */
function lineOf(row: RowState, question: string | undefined, failure: string | undefined): string {
  if (row.status === 'needs_input' && question !== undefined) return question
  if (row.status === 'failed') return failure ?? firstNote(row.notes)
  if (row.status === 'awaiting_review') return `awaiting review${getNote(row.notes, 'result') ? `: ${getNote(row.notes, 'result')}` : ''}`
  return firstNote(row.notes)
}

/** The row's line in the grid: its question, else its first note that is not a spend figure (the grid shows spend apart). */
function firstNote(notes: string): string {
  const question = getNote(notes, 'question')
  return question ?? notes.split('; ').find((item) => !/^(?:tokens|cost):/.test(item)) ?? ''
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > 200 ? line.slice(0, 199) + '…' : line
}
