import {readBudget} from './read-budget.js'
import type {Agent, Budget} from './types.js'

/** An agent's own budget (its `budget` field: `{tokens: 2M}`, `2M`, `usd=5`), or undefined (none, or one `validate` reports). */
export function agentBudget(agent: Agent | undefined): Budget | undefined {
  const field = agent?.fields.budget
  if (field === undefined || field.value.trim() === '') return undefined
  const read = readBudget(field.value.trim())
  return 'budget' in read ? read.budget : undefined
}
