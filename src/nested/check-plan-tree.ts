import {existsSync} from 'node:fs'
import {relative, resolve} from 'node:path'
import {checkPlan} from '../plan/check-plan.js'
import {dependencyClosure} from '../plan/dependency-closure.js'
import {loadPlan} from '../plan/load-plan.js'
import {PlanError} from '../plan/plan-error.js'
import type {Diagnostic, Plan, Span} from '../plan/types.js'
import {childPlanField, childPlanPath} from '../plan/child-plan-path.js'
import {sharedChildPlans} from './shared-child-plans.js'
import {plural} from '../util/plural.js'

/**
 * Follow a plan's `plan:` links: a child plan that is missing, that includes
 * a plan above it (a cycle of plans), or that is invalid is an error at the
 * parent's `plan:` field naming both files; the child's own problems keep
 * their own files and positions. Two child plans that can run at the same
 * time may not touch one file, nor be one plan. `file` is the plan's path as messages show it.
 */
export async function checkPlanTree(plan: Plan, file: string, cwd = process.cwd()): Promise<Diagnostic[]> {
  return (await walk(plan, file, cwd, [resolve(cwd, file)])).diagnostics
}

interface Walked {
  diagnostics: Diagnostic[]
  /** Every path the plan's agents declare, at any depth, with where it is declared. */
  touches: Array<{path: string; file: string; place: Span}>
}

async function walk(plan: Plan, file: string, cwd: string, chain: string[]): Promise<Walked> {
  const diagnostics: Diagnostic[] = []
  const touches: Walked['touches'] = []
  const byAgent = new Map<string, Walked['touches']>()
  const show = (path: string): string => relative(cwd, path) || path
  for (const agent of plan.agents) {
    const own = [...agent.creates, ...agent.modifies, ...agent.deletes].map((ref) => ({path: ref.path, file, place: ref.position}))
    byAgent.set(agent.id, own)
    touches.push(...own)
    const child = childPlanPath(resolve(cwd, file), agent)
    if (!child) continue
    const place = agent.fields.plan!.position
    const error = (rule: string, reason: string): void => void diagnostics.push({severity: 'error', rule, reason, file, place})
    if (chain.includes(child)) {
      error('plan-cycle', `cycle of plans: ${[...chain.slice(chain.indexOf(child)), child].map(show).join(' → ')}: agent ${agent.id} runs a plan that runs this one`)
      continue
    }
    if (!existsSync(child)) {
      error('missing-child-plan', `agent ${agent.id} runs the plan \`${childPlanField(agent)}\`, which does not exist (${show(child)})`)
      continue
    }
    let childPlan: Plan
    try {
      childPlan = await loadPlan(show(child), {cwd})
    } catch (caught) {
      if (!(caught instanceof PlanError)) throw caught
      const first = caught.diagnostics[0]
      error('invalid-child-plan', `agent ${agent.id} runs ${show(child)}, which is not a readable plan: ${first?.reason ?? 'unreadable'}`)
      continue
    }
    const problems = checkPlan(childPlan).filter((d) => d.severity === 'error')
    if (problems.length > 0) {
      const first = problems[0]!
      const at = first.place && 'start' in first.place ? `:${first.place.start.line}:${first.place.start.column}` : ''
      error('invalid-child-plan', `agent ${agent.id} runs ${show(child)}, which is invalid (${plural(problems.length, 'error')}; first: ${show(child)}${at}: ${first.reason})`)
      diagnostics.push(...problems)
    }
    const below = await walk(childPlan, show(child), cwd, [...chain, child])
    diagnostics.push(...below.diagnostics)
    byAgent.get(agent.id)!.push(...below.touches)
    touches.push(...below.touches)
  }
  diagnostics.push(...sharedChildPlans(plan, file, resolve(cwd, file)), ...crossPlanConflicts(plan, file, byAgent))
  return {diagnostics, touches}
}

/** Two agents that can run at the same time, at least one a child plan, touching one path. */
function crossPlanConflicts(plan: Plan, file: string, byAgent: Map<string, Walked['touches']>): Diagnostic[] {
  const out: Diagnostic[] = []
  const closure = dependencyClosure(plan.agents)
  const nested = plan.agents.filter((agent) => childPlanField(agent) !== undefined)
  for (const a of nested) {
    for (const b of plan.agents) {
      if (a.id === b.id || !closure.concurrent(a.id, b.id)) continue
      if (childPlanField(b) !== undefined && b.id < a.id) continue
      const mine = byAgent.get(a.id) ?? []
      const theirs = new Map((byAgent.get(b.id) ?? []).map((touch) => [touch.path.replace(/^\.\//, ''), touch]))
      for (const touch of mine) {
        const other = theirs.get(touch.path.replace(/^\.\//, ''))
        if (!other) continue
        out.push({
          severity: 'error',
          rule: 'file-conflict',
          reason: `agents ${a.id} and ${b.id} can run at the same time and both touch \`${touch.path}\` (${touch.file}:${touch.place.start.line}:${touch.place.start.column} and ${other.file}:${other.place.start.line}:${other.place.start.column}); make one depend on the other`,
          file,
          place: a.fields.plan!.position
        })
        break
      }
    }
  }
  return out
}
