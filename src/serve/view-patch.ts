import type {AgentView, PlanView, QuestionView} from './plan-view.js'

/**
 * What changed from one view of a plan to the next of the same shape: the rows that changed (whole), and the
 * plan's small parts (counts, meta lines; the questions and title when they changed). `applyViewPatch` makes
 * the next view from the first and this.
 */
export interface ViewPatch {
  agents: AgentView[]
  counts: PlanView['counts']
  meta: PlanView['meta']
  questions?: QuestionView[]
  title?: string
}

/**
 * The patch from `before` to `after`, or undefined when only the whole view will do (another plan, or another
 * shape: agents added, removed, reordered, or their edges changed). Pure; a row costs a comparison of its fields.
 */
export function viewPatch(before: PlanView, after: PlanView): ViewPatch | undefined {
  if (before.file !== after.file || before.shape !== after.shape || before.agents.length !== after.agents.length) return undefined
  // One shape: the same ids in the same order.
  const agents = after.agents.filter((agent, i) => !sameAgent(before.agents[i]!, agent))
  return {
    agents,
    counts: after.counts,
    meta: after.meta,
    ...(JSON.stringify(before.questions) !== JSON.stringify(after.questions) && {questions: after.questions}),
    ...(before.title !== after.title && {title: after.title})
  }
}

/** Whether two views of one agent show the same: every field, arrays by their items. */
export function sameAgent(a: AgentView, b: AgentView): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof AgentView>
  for (const key of keys) {
    const x = a[key]
    const y = b[key]
    if (x === y) continue
    if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length || x.some((item, i) => item !== y[i])) return false
  }
  return true
}
