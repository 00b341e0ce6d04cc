/**
 * The Resume State a parent agent carries for a question its child plan
 * asked: which child plan, which of its agents, and that agent's own Resume
 * State (which may itself be nested, as deep as plans are nested).
 *
 *     plan: plans/auth.md
 *     agent: B
 *     state: |
 *       step: 3 of 5
 */
export interface NestedResumeState {
  plan: string
  agent: string
  state: string
}

export function renderNestedResumeState(nested: NestedResumeState): string {
  const state = nested.state === '' ? '' : nested.state.split('\n').map((line) => (line === '' ? '' : `  ${line}`)).join('\n')
  return `plan: ${nested.plan}\nagent: ${nested.agent}\nstate: |${state === '' ? '' : `\n${state}`}`
}

/** Undefined when `text` is not a nested resume state (an ordinary agent's own). */
export function parseNestedResumeState(text: string): NestedResumeState | undefined {
  const lines = text.replace(/\r/g, '').split('\n')
  const plan = /^plan:\s*(.+)$/.exec(lines[0]?.trim() ?? '')
  const agent = /^agent:\s*(.+)$/.exec(lines[1]?.trim() ?? '')
  if (!plan || !agent || !/^state:\s*\|?\s*$/.test(lines[2]?.trim() ?? '')) return undefined
  const state = lines.slice(3).map((line) => line.replace(/^ {2}/, '')).join('\n').replace(/\n+$/, '')
  return {plan: plan[1]!.trim(), agent: agent[1]!.trim(), state}
}
