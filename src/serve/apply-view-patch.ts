import type {PlanView} from './plan-view.js'
import type {ViewPatch} from './view-patch.js'

/** The view `patch` (from `viewPatch`) makes of `before`: its rows replaced by id, its small parts as the patch has them. Pure. */
export function applyViewPatch(before: PlanView, patch: ViewPatch): PlanView {
  const changed = new Map(patch.agents.map((agent) => [agent.id, agent]))
  return {
    ...before,
    ...(patch.title !== undefined && {title: patch.title}),
    agents: changed.size === 0 ? before.agents : before.agents.map((agent) => changed.get(agent.id) ?? agent),
    questions: patch.questions ?? before.questions,
    counts: patch.counts,
    meta: patch.meta
  }
}
