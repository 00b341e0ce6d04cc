import {existsSync} from 'node:fs'
import {relative} from 'node:path'
import {loadPlan} from '../plan/load-plan.js'
import {planStatus, type PlanStatus} from '../plan/plan-status.js'
import type {Plan} from '../plan/types.js'
import {childPlanPath} from '../plan/child-plan-path.js'
import {plural} from '../util/plural.js'

/** The status of one child plan, nested as deep as its own children go. */
export interface ChildStatus {
  /** The parent's agent that runs the child plan. */
  agent: string
  /** The child plan's path, relative to the current folder. */
  plan: string
  /** Undefined when the child plan cannot be read (`validate` says why). */
  status?: PlanStatus & {children: ChildStatus[]}
}

/** The child plans of `plan` (read from `file`), each with its status, recursively. */
export async function childStatuses(plan: Plan, file: string, cwd: string, seen: ReadonlySet<string> = new Set([file])): Promise<ChildStatus[]> {
  const out: ChildStatus[] = []
  for (const agent of plan.agents) {
    const child = childPlanPath(file, agent)
    if (!child) continue
    const shown = relative(cwd, child) || child
    if (seen.has(child) || !existsSync(child)) {
      out.push({agent: agent.id, plan: shown})
      continue
    }
    try {
      const childPlan = await loadPlan(child)
      const status = planStatus(childPlan)
      out.push({agent: agent.id, plan: shown, status: {...status, file: shown, children: await childStatuses(childPlan, child, cwd, new Set([...seen, child]))}})
    } catch {
      out.push({agent: agent.id, plan: shown})
    }
  }
  return out
}

/** The tree as text lines: `B → plans/api.md: 3 agents: 2 completed, 1 pending`, children indented below. */
export function formatChildStatuses(children: readonly ChildStatus[], indent = '  '): string[] {
  const lines: string[] = []
  for (const child of children) {
    if (!child.status) {
      lines.push(`${indent}${child.agent} → ${child.plan}: cannot be read (see \`mdplan validate\`)`)
      continue
    }
    const counts = Object.entries(child.status.counts).filter(([, n]) => n > 0).map(([status, n]) => `${n} ${status}`)
    lines.push(`${indent}${child.agent} → ${child.plan}: ${plural(child.status.total, 'agent')}: ${counts.join(', ')}`)
    lines.push(...formatChildStatuses(child.status.children, `${indent}  `))
  }
  return lines
}
