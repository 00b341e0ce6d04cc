/** An agent of `reviewPlan`: its heading, dependencies and `review:` field (written as given, when given). */
export interface ReviewPlanAgent {
  id: string
  name: string
  deps?: string[]
  review?: string
}

/**
 * A plan of shell agents for the review gate's tests, with an Execution State table of `rows` (as written)
 * and its `Started:` and `Last updated:` lines. `front`: front matter lines after `runner: shell`.
 */
export function reviewPlan(input: {front?: string[]; agents: ReviewPlanAgent[]; rows: string[]}): string {
  const agents = input.agents.flatMap((agent) => [
    `### ${agent.id}: ${agent.name}`,
    `- **depends_on**: [${(agent.deps ?? []).join(', ')}]`,
    ...(agent.review === undefined ? [] : [`- **review**: ${agent.review}`]),
    '- **prompt**: |',
    `    echo ${agent.id.toLowerCase()}`,
    ''
  ])
  const table = ['| Agent | Status | Agent ID | Duration | Notes |', '|-------|--------|----------|----------|-------|', ...input.rows]
  const meta = ['Started: 2026-03-01T10:00:00Z', 'Last updated: 2026-03-01T10:05:00Z']
  return ['---', 'runner: shell', ...(input.front ?? []), '---', '', '# Parallel Plan: gated', '', '## Agents', '', ...agents, '## Execution State', '', ...table, '', ...meta, ''].join('\n')
}
