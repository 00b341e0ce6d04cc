import type {Plan} from '../plan/types.js'
import {validatePlan} from '../plan/validate-plan.js'
import {renderState} from '../store/render-state.js'
import {stateLayout} from '../store/state-layout.js'
import {emptyRow, readRows} from '../store/table-state.js'
import {checkGeneratedPlan} from './check-generated-plan.js'
import {issuesToPlan, mismatch, type IssuesPlan} from './issues-to-plan.js'
import {ImportError, type Issue} from './read-issues.js'

export interface AddedIssues extends Omit<IssuesPlan, 'text'> {
  /** The plan's new text (BOM included when it had one); undefined when the queue has no new open issue. */
  text?: string
}

/**
 * A plan made by `mdplan import`, grown by the issues its queue gained since:
 * their agents go after the last agent, their rows (pending) after the last
 * row, in the table's style. Existing agents, rows and every other byte stay
 * as they are. The plan knows its issues by the `issue` field of its
 * executing agents. Pure.
 */
export function addIssuesToPlan(plan: Plan, issues: readonly Issue[], source: string): AddedIssues {
  const existing = new Map<string, number>()
  let highest = 0
  for (const agent of plan.agents) {
    const n = /^[PE](\d+)$/.exec(agent.id)
    if (n) highest = Math.max(highest, Number(n[1]))
    const issue = agent.fields.issue?.value.trim()
    if (issue && n && agent.id.startsWith('E')) existing.set(issue, Number(n[1]))
  }
  const result = issuesToPlan(issues, {source, existing, firstNumber: highest + 1})
  const {text: _, ...rest} = result
  if (result.imported.length === 0) return rest

  const {eol} = plan
  let text = plan.text
  const layout = stateLayout(plan)
  if (layout) {
    const rows = readRows(plan)
    for (const id of result.agentIds) rows.set(id, emptyRow())
    const rendered = renderState(layout, {rows, meta: {}})
    text = text.slice(0, layout.start) + rendered.text + text.slice(layout.end)
  }
  const last = plan.agents[plan.agents.length - 1]
  const at = last ? last.section.end.offset : text.length
  const before = text.slice(0, at)
  const lead = before.endsWith(eol + eol) || before === '' ? '' : before.endsWith('\n') ? eol : eol + eol
  const block = result.agents.join('\n').replace(/\n/g, eol) + eol
  text = before + lead + block + text.slice(at)
  const knownErrors = new Set([...plan.messages, ...validatePlan(plan)].filter((d) => d.severity === 'error').map((d) => `${d.rule} ${d.reason}`))
  const wrong = checkGeneratedPlan(text, source, {earlier: plan.agents.map((agent) => agent.id), agents: result.generated, knownErrors})
  if (wrong.length > 0) throw new ImportError(mismatch(source, wrong))
  return {...rest, text: (plan.bom ? '\ufeff' : '') + text}
}
