import {readBudget} from './read-budget.js'
import type {Diagnostic, Plan} from './types.js'

/** Each agent's `budget` field that reads as no budget, at the field (`plan.md:12:3: … [invalid-budget]`). */
export function agentBudgetProblems(plan: Plan): Diagnostic[] {
  const out: Diagnostic[] = []
  for (const agent of plan.agents) {
    const field = agent.fields.budget
    if (field === undefined) continue
    const read = readBudget(field.value.trim())
    if ('problem' in read) out.push({severity: 'error', rule: 'invalid-budget', reason: `\`budget\` of agent ${agent.id} must be ${read.problem}`, file: plan.file, place: field.position})
  }
  return out
}
