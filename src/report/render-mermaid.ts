import {statuses, type Plan, type Status} from '../plan/types.js'
import type {ChildPlans} from '../nested/load-child-plans.js'

/** Fill, stroke and text colour per status: distinct on GitHub's light and dark themes. */
const styles: Record<Status, string> = {
  pending: 'fill:#f6f8fa,stroke:#8c959f,color:#24292f',
  in_progress: 'fill:#ddf4ff,stroke:#0969da,color:#0a3069',
  completed: 'fill:#dafbe1,stroke:#1a7f37,color:#116329',
  failed: 'fill:#ffebe9,stroke:#cf222e,color:#a40e26',
  needs_input: 'fill:#fff8c5,stroke:#9a6700,color:#7d4e00',
  awaiting_review: 'fill:#fbefff,stroke:#8250df,color:#6639ba'
}

// Words Mermaid's flowchart grammar reads as keywords, not node ids.
const reserved = new Set(['end', 'graph', 'flowchart', 'subgraph', 'style', 'class', 'classdef', 'click', 'linkstyle', 'direction', 'default'])

/**
 * A Mermaid flowchart of the plan's DAG: a node per agent styled by its status
 * in the Execution State table, `-->` for `depends_on`, `-.->` for
 * `soft_depends_on`. GitHub renders it in the PR, so the picture stays live.
 */
export function renderMermaid(plan: Plan, children: ChildPlans = new Map()): string {
  const lines = ['flowchart TD']
  const classes = new Map<Status, string[]>()
  drawPlan(plan, children, '', '  ', lines, classes)
  // A plan with no gate keeps the block it always had: the review gate's class only where an agent is in it.
  for (const name of statuses) if (name !== 'awaiting_review' || classes.has(name)) lines.push(`  classDef ${name} ${styles[name]}`)
  for (const name of statuses) {
    const members = classes.get(name) ?? []
    if (members.length > 0) lines.push(`  class ${members.join(',')} ${name}`)
  }
  return lines.join('\n') + '\n'
}

/**
 * One plan's nodes and edges; an agent that runs a child plan is a
 * `subgraph` holding the child's DAG (ids prefixed with the agent's, as deep
 * as plans nest), and edges to and from it meet the subgraph.
 */
function drawPlan(plan: Plan, children: ChildPlans, prefix: string, indent: string, lines: string[], classes: Map<Status, string[]>): void {
  const status = new Map<string, Status>()
  for (const row of plan.state?.table?.rows ?? []) if (row.status) status.set(row.agent, row.status)
  const nodeIds = nodeIdsFor(plan.agents.map((agent) => agent.id), prefix)
  for (const agent of plan.agents) {
    const id = nodeIds.get(agent.id)!
    const label = escapeLabel(`${agent.id}: ${agent.name}`)
    const child = children.get(agent.id)
    if (child) {
      lines.push(`${indent}subgraph ${id}["${label}"]`)
      drawPlan(child.plan, child.children, `${id}__`, `${indent}  `, lines, classes)
      lines.push(`${indent}end`)
      continue
    }
    lines.push(`${indent}${id}["${label}"]`)
    const name = status.get(agent.id) ?? 'pending'
    classes.set(name, [...(classes.get(name) ?? []), id])
  }
  for (const agent of plan.agents) {
    const to = nodeIds.get(agent.id)!
    for (const dep of agent.dependsOn) {
      const from = nodeIds.get(dep.id)
      if (from !== undefined) lines.push(`${indent}${from} --> ${to}`)
    }
    for (const dep of agent.softDependsOn) {
      const from = nodeIds.get(dep.id)
      if (from !== undefined) lines.push(`${indent}${from} -.-> ${to}`)
    }
  }
}

/**
 * Agent ids such as `B2` are used as they are, so the source stays readable;
 * ids Mermaid would misread (`end`, `api-client`, ids starting with `o` or `x`,
 * which turn `-->` into a circle or cross edge) get a safe, unique name.
 */
function nodeIdsFor(ids: readonly string[], prefix = ''): Map<string, string> {
  const result = new Map<string, string>()
  const taken = new Set<string>()
  for (const id of ids) {
    const plain = /^[A-Za-z][A-Za-z0-9_]*$/.test(id) && !reserved.has(id.toLowerCase()) && !/^[ox]/.test(id)
    let name = prefix + (plain || prefix !== '' ? id.replace(/[^A-Za-z0-9_]/g, '_') : `n_${id.replace(/[^A-Za-z0-9_]/g, '_')}`)
    while (taken.has(name)) name += '_'
    taken.add(name)
    result.set(id, name)
  }
  return result
}

/** Mermaid entity codes inside a quoted label, so no agent name can break the chart. */
function escapeLabel(text: string): string {
  return text
    .replace(/[\r\n]+/g, ' ')
    .replace(/#/g, '#35;')
    .replace(/"/g, '#quot;')
    .replace(/</g, '#lt;')
    .replace(/>/g, '#gt;')
    .replace(/`/g, '#96;')
}
