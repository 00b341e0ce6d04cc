import {randomBytes} from 'node:crypto'
import {existsSync} from 'node:fs'
import {dirname, relative, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import type {RunEvent} from '../events.js'
import {packageRoot} from '../package-root.js'
import {loadPlan} from '../plan/load-plan.js'
import type {Runner, RunRequest, RunResult} from '../runners/runner.js'
import {spawnRequest} from '../runners/spawn-request.js'
import {drawnAgentId} from '../runners/agent-id.js'
import {perAgentVariables} from '../process/inherited-env.js'
import {exitReason} from '../process/process-reason.js'
import {tableStateFromPlan} from '../store/table-state.js'
import {answerDown} from './answer-down.js'
import {childOutcome} from './child-outcome.js'
import {childLimit} from './child-limit.js'
import {exitCodes} from '../exit-codes.js'
import {childPlanPath} from '../plan/child-plan-path.js'
import {childTableDamage} from './child-table-damage.js'
import {parseNestedResumeState} from './nested-resume-state.js'
import {requeueFailed} from './requeue-failed.js'

/**
 * An agent whose definition names a plan (`- **plan**: plans/auth.md`): its
 * attempt is `mdplan run <child> --json` in a process of its own, so Ctrl-C,
 * SIGKILL and timeouts treat it as any agent (its process group ends, the
 * child's rows stay resumable, its lock is its own). The child plan keeps its
 * own state in its own file, so running the parent again resumes the child.
 * Its events come up marked with the child plan; its outcome is read from
 * the child's file: completed, failed (naming the child agent), or a
 * question, passed up with the child's Resume State wrapped in one of ours.
 */
export const planRunner: Runner = {
  name: 'plan',
  canResume: false,
  newAgentId: () => `plan-${randomBytes(4).toString('hex')}`,
  run: runChildPlan
}

async function runChildPlan(request: RunRequest): Promise<RunResult> {
  const agentId = await drawnAgentId(request, planRunner)
  const child = childPlanPath(request.planFile, request.agent)!
  if (!existsSync(child)) return {ok: false, agentId, finalText: '', reason: `child plan ${child} does not exist`}
  const started = Date.now()
  // An answer given in the parent flows down to the child agent that asked (and further down).
  const answer = request.options.env?.MDPLAN_ANSWER
  const nested = parseNestedResumeState(request.options.env?.MDPLAN_RESUME_STATE ?? '')
  if (answer !== undefined && nested) await answerDown(resolve(dirname(request.planFile), nested.plan), nested.agent, answer, {onlyIfUnanswered: true})

  // The parent retries this agent: the child's failed agents get another attempt too.
  if (request.attempt > 1 && !request.resume) await requeueFailed(child)
  const before = tableStateFromPlan(await loadPlan(child))
  const total = before.rows.size
  let completed = [...before.rows.values()].filter((row) => row.status === 'completed').length
  const progress = (): void => request.onProgress?.(`child: ${completed}/${total} completed`)
  progress()
  const onLine = (line: string): void => {
    let event: RunEvent
    try {
      event = JSON.parse(line) as RunEvent
    } catch {
      return
    }
    if (typeof event !== 'object' || event === null || typeof event.type !== 'string') return
    request.onChildEvent?.(event)
    if (event.type === 'completed') {
      completed++
      progress()
    }
  }
  const bin = fileURLToPath(new URL('bin/mdplan.js', packageRoot))
  const args = [bin, 'run', child, '--json', '--concurrency', String(request.child?.concurrency ?? 1), ...(request.child?.args ?? [])]
  // The plans of the tree are written by their own runs: no child run counts them as its agents' work.
  const parent = await loadPlan(request.planFile)
  const tree = [...(process.env.MDPLAN_TREE_PLANS ?? '').split('\n'), request.planFile, ...parent.agents.map((agent) => childPlanPath(request.planFile, agent))]
  const env = {MDPLAN_TREE_PLANS: [...new Set(tree.filter((path): path is string => Boolean(path)))].join('\n')}
  // The answer and resume state went down through the child's Open Questions (answerDown) to the one
  // child agent that asked; the child run itself gets none of this agent's own variables.
  const result = await spawnRequest({...request, options: {...request.options, env: withoutPerAgent(request.options.env)}}, {file: process.execPath, args, env, onLine})
  const base = {agentId, exitCode: result.exitCode, signal: result.signal, timedOut: result.timedOut, interrupted: result.interrupted, durationMs: Date.now() - started}
  const where = relative(dirname(request.planFile), child) || child
  if (result.exitCode === 0) return {...base, ok: true, finalText: `RESULT: SUCCESS\nchild plan ${where}: ${total}/${total} completed`}
  if (!result.timedOut && !result.interrupted && !result.spawnFailed) {
    // The child stopped over its own damaged table (what it could not record is in its journal): wait for the repair.
    const damaged = await childTableDamage(child)
    if (damaged) return {...base, ok: false, transient: true, finalText: '', reason: `child ${where}: its Execution State table is damaged (${damaged}); waiting for its repair`}
  }
  // The child waits for a usage limit's reset (exit 4): so does this agent, without spending an attempt.
  if (result.exitCode === exitCodes.limited) {
    const resetAt = await childLimit(child)
    return {...base, ok: false, rateLimited: true, ...(resetAt !== undefined ? {resetAt} : {}), finalText: '', reason: `child ${where}: usage limit`}
  }
  // The child's own budget is spent (exit 5): another attempt would stop the same way, so none is made.
  if (result.exitCode === exitCodes.budget) return {...base, ok: false, configError: true, finalText: '', reason: `child ${where}: its budget is spent; raise the child plan's \`budget\` and run again`}
  if (result.timedOut || result.interrupted || result.spawnFailed || result.exitCode !== 1) {
    const said = result.stderr.trim().split('\n').filter(Boolean).at(-1)
    return {...base, ok: false, spawnFailed: result.spawnFailed, finalText: '', reason: `child ${where}: ${said && result.exitCode !== undefined && !result.timedOut ? said : exitReason(result, 'mdplan', request.timeoutMs)}`}
  }
  return {...base, ...(await childOutcome({childFile: child, parentFile: request.planFile, agentId}))}
}

function withoutPerAgent(env: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!env) return env
  const rest = {...env}
  for (const name of perAgentVariables) delete rest[name]
  return rest
}
