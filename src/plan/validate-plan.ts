import path from 'node:path'
import {dependencyClosure} from './dependency-closure.js'
import {findCycles} from './find-cycles.js'
import {statuses, type Agent, type Diagnostic, type PathRef, type Plan, type Span} from './types.js'
import {sortDiagnostics} from './sort-diagnostics.js'
import {fieldPoint} from './field-point.js'
import {reviewValue} from './review-gate.js'
import {agentBudgetProblems} from './agent-budget-problems.js'
import {spendCellProblems} from './spend-cell-problems.js'

type PathKind = 'creates' | 'modifies' | 'deletes'

/**
 * Every problem with a parsed plan's meaning, collected, sorted by position.
 * Parse problems are in `plan.messages` and are not repeated here: report
 * `[...plan.messages, ...validatePlan(plan)]` (or use `checkPlan`).
 */
export function validatePlan(plan: Plan): Diagnostic[] {
  const out: Diagnostic[] = []
  const file = plan.file
  const error = (rule: string, reason: string, place?: Span): void => {
    out.push({severity: 'error', rule, reason, file, ...(place ? {place} : {})})
  }

  const first = new Map<string, Agent>()
  for (const agent of plan.agents) {
    const earlier = first.get(agent.id)
    if (earlier) error('duplicate-agent', `duplicate agent ID \`${agent.id}\` (first defined at ${where(earlier.position)}): IDs must be unique`, agent.position)
    else first.set(agent.id, agent)
  }

  for (const agent of plan.agents) {
    for (const [refs, key] of [
      [agent.dependsOn, 'depends_on'],
      [agent.softDependsOn, 'soft_depends_on']
    ] as const) {
      for (const ref of refs) {
        if (ref.id === agent.id) error('self-dependency', `agent ${agent.id} lists itself in \`${key}\``, ref.position)
        else if (!first.has(ref.id)) error('unknown-dependency', `unknown dependency \`${ref.id}\` in \`${key}\` of agent ${agent.id}${suggest(ref.id, first)}`, ref.position)
      }
    }
  }

  for (const cycle of findCycles(plan.agents)) {
    const chain = [...cycle.agents, cycle.agents[0]].join(' → ')
    error('dependency-cycle', `dependency cycle: ${chain}${cycle.soft ? ' (through `soft_depends_on`)' : ''}: no agent of it can ever start`, cycle.ref.position)
  }

  const promptsMissing = plan.messages.some((d) => d.rule === 'missing-prompts-file')
  if (!promptsMissing) {
    for (const agent of plan.agents) {
      // An agent whose definition names a child plan runs that plan, not a prompt.
      if (agent.fields.plan?.value.trim()) continue
      if (!agent.prompt || agent.prompt.text.trim() === '') {
        const hint = plan.promptsFile ? ` and no \`## ${agent.id}: …\` section in the prompts file` : ': add `- **prompt**: |` and an indented block'
        error('missing-prompt', `agent ${agent.id} has no prompt${hint}`, agent.position)
      }
    }
  }

  for (const agent of plan.agents) {
    const field = agent.fields.review
    if (field === undefined || reviewValue(field.value) !== undefined) continue
    const point = fieldPoint(plan.text, field)
    out.push({severity: 'error', rule: 'invalid-review', reason: `\`review\` of agent ${agent.id} must be \`true\` or \`false\`, not \`${field.value.trim()}\``, file, place: point})
  }

  checkPaths(plan, first, out)
  checkTable(plan, first, out)
  out.push(...agentBudgetProblems(plan), ...spendCellProblems(plan))
  return sortDiagnostics(out)
}

/** `line:col` of a span's start, for messages that point at a second place. */
function where(span: Span): string {
  return `${span.start.line}:${span.start.column}`
}

/** Ids are case-sensitive: point out a near miss such as `a` for `A`. */
function suggest(id: string, known: Map<string, Agent>): string {
  for (const other of known.keys()) if (other.toLowerCase() === id.toLowerCase()) return ` (did you mean \`${other}\`?)`
  return ''
}

function checkPaths(plan: Plan, agents: Map<string, Agent>, out: Diagnostic[]): void {
  const file = plan.file
  const owners = new Map<string, Array<{agent: Agent; ref: PathRef; kind: PathKind}>>()
  for (const agent of agents.values()) {
    for (const kind of ['creates', 'modifies', 'deletes'] as const) {
      for (const ref of agent[kind]) {
        const normal = normalizePath(ref.path)
        if (normal === undefined) {
          out.push({severity: 'error', rule: 'path-outside-repo', reason: `\`${ref.path}\` in \`${kind}\` of agent ${agent.id} is outside the repository: use a path relative to its root`, file, place: ref.position})
          continue
        }
        const list = owners.get(normal)
        if (list) list.push({agent, ref, kind})
        else owners.set(normal, [{agent, ref, kind}])
      }
    }
  }

  let closure: ReturnType<typeof dependencyClosure> | undefined
  for (const [normal, list] of owners) {
    if (list.length < 2) continue
    closure ??= dependencyClosure(plan.agents)
    const reported = new Set<string>()
    for (let j = 1; j < list.length; j++) {
      for (let i = 0; i < j; i++) {
        const a = list[i]!
        const b = list[j]!
        if (a.agent.id === b.agent.id || !closure.concurrent(a.agent.id, b.agent.id)) continue
        const pair = `${a.agent.id}\u0000${b.agent.id}`
        if (reported.has(pair)) continue
        reported.add(pair)
        out.push({
          severity: 'error',
          rule: 'file-conflict',
          reason:
            `agents ${a.agent.id} and ${b.agent.id} can run at the same time and both touch \`${normal}\`: ` +
            `\`${a.kind}\` of ${a.agent.id} at ${where(a.ref.position)}, \`${b.kind}\` of ${b.agent.id} at ${where(b.ref.position)}; ` +
            `make one depend on the other`,
          file,
          place: b.ref.position
        })
      }
    }
  }
}

/** The repository-relative form of a path, or `undefined` when it is absolute or leaves the repository. */
function normalizePath(value: string): string | undefined {
  const slashed = value.replace(/\\/g, '/')
  if (slashed.startsWith('/') || slashed.startsWith('~') || /^[A-Za-z]:\//.test(slashed)) return undefined
  const normal = path.posix.normalize(slashed)
  if (normal === '..' || normal.startsWith('../')) return undefined
  return normal.replace(/^\.\//, '').replace(/\/$/, '')
}

function checkTable(plan: Plan, agents: Map<string, Agent>, out: Diagnostic[]): void {
  const file = plan.file
  const table = plan.state?.table
  if (!plan.state) {
    // After a parse error (a fence that swallowed the rest, say) the section may well exist.
    if (agents.size > 0 && !plan.messages.some((d) => d.severity === 'error')) out.push({severity: 'info', rule: 'missing-state-section', reason: 'no `## Execution State` section yet: one is appended, with a row per agent, on the first write', file})
    return
  }
  if (!table) return
  const rows = new Map<string, Span>()
  for (const row of table.rows) {
    const cell = row.cells[table.index.status]!
    if (row.status === undefined) {
      const shown = row.statusRaw === '' ? 'an empty status' : `unknown status \`${row.statusRaw}\``
      out.push({severity: 'error', rule: 'unknown-status', reason: `${shown} for agent ${row.agent || '(none)'}: expected one of ${statuses.join(', ')}`, file, place: cell.position})
    }
    const earlier = rows.get(row.agent)
    if (earlier) {
      out.push({severity: 'warning', rule: 'duplicate-table-row', reason: `a second row for agent ${row.agent} (first at line ${earlier.start.line}): only the first counts`, file, place: row.position})
    } else rows.set(row.agent, row.position)
    if (!agents.has(row.agent)) {
      out.push({
        severity: 'warning',
        rule: 'unknown-table-row',
        reason: `the Execution State table has a row for \`${row.agent}\`, which is not an agent of this plan: it is kept as it is`,
        file,
        place: row.cells[table.index.agent]!.position
      })
    }
  }
  for (const agent of agents.values()) {
    if (!rows.has(agent.id)) {
      out.push({severity: 'info', rule: 'missing-table-row', reason: `agent ${agent.id} has no row in the Execution State table: it gets one on the first write`, file, place: agent.position})
    }
  }
}
