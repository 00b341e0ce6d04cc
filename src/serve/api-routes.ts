import type {ServedPlans} from './served-plans.js'
import {layoutDag} from './layout-dag.js'
import {logAttempts, readLogChunk} from './read-log-chunk.js'
import {applyRowEdit} from './apply-row-edit.js'
import {rowEdits, type RowEdit} from './row-edit.js'
import {PlanStore} from '../store/plan-store.js'
import {answerQuestion} from '../nested/answer-question.js'
import {applyReview} from '../store/apply-review.js'

/** A reply: a status and a JSON body. */
export interface Reply {
  status: number
  body: unknown
}

const agentId = /^[A-Za-z][A-Za-z0-9_.-]*$/

/** The plan a request names by its index (`?plan=0`), or a 404: no request names a file. */
function planOf(plans: ServedPlans, value: unknown): number | Reply {
  const index = typeof value === 'number' ? value : Number(value)
  return Number.isInteger(index) && index >= 0 && index < plans.plans.length ? index : {status: 404, body: {error: 'no such plan'}}
}

export async function listPlans(plans: ServedPlans): Promise<Reply> {
  const list = await Promise.all(
    plans.plans.map(async (plan, index) => {
      const {view, error} = await plans.view(index)
      return {index, name: plan.name, parent: plan.parent, agent: plan.agent, title: view?.title, counts: view?.counts, error}
    })
  )
  return {status: 200, body: list}
}

export async function showPlan(plans: ServedPlans, query: URLSearchParams): Promise<Reply> {
  const index = planOf(plans, query.get('plan'))
  if (typeof index !== 'number') return index
  const {view, error} = await plans.view(index)
  return view ? {status: 200, body: view} : {status: 422, body: {error}}
}

export async function showDag(plans: ServedPlans, query: URLSearchParams): Promise<Reply> {
  const index = planOf(plans, query.get('plan'))
  if (typeof index !== 'number') return index
  const {view, error} = await plans.view(index)
  if (!view) return {status: 422, body: {error}}
  return {status: 200, body: {shape: view.shape, ...(await layoutDag(view.shape, view.agents))}}
}

export async function showLog(plans: ServedPlans, query: URLSearchParams): Promise<Reply> {
  const index = planOf(plans, query.get('plan'))
  if (typeof index !== 'number') return index
  const agent = query.get('agent') ?? ''
  const {view} = await plans.view(index)
  if (!view || !view.agents.some((candidate) => candidate.id === agent)) return {status: 404, body: {error: 'no such agent'}}
  const file = plans.plans[index]!.file
  const attempts = logAttempts(file, agent)
  const attempt = query.has('attempt') ? Number(query.get('attempt')) : attempts[attempts.length - 1]
  if (attempt === undefined || !attempts.includes(attempt)) return {status: 200, body: {attempts, attempt: null, text: '', next: 0, size: 0}}
  const from = Number(query.get('from') ?? -64 * 1024)
  const chunk = await readLogChunk(file, agent, attempt, Number.isFinite(from) ? from : 0)
  return {status: 200, body: {attempts, attempt, ...(chunk ?? {text: '', next: 0, size: 0})}}
}

/** POST /api/answer {plan, agent, answer}: what `mdplan answer` does. */
export async function postAnswer(plans: ServedPlans, body: Record<string, unknown>): Promise<Reply> {
  const index = planOf(plans, body.plan)
  if (typeof index !== 'number') return index
  const {agent, answer} = body
  if (typeof agent !== 'string' || !agentId.test(agent) || typeof answer !== 'string') return {status: 400, body: {error: 'expected {plan, agent, answer}'}}
  const store = await PlanStore.open(plans.plans[index]!.file)
  try {
    const outcome = await answerQuestion(store, agent, answer)
    if (outcome.kind === 'answered') return {status: 200, body: {answered: agent, text: outcome.text, down: outcome.down.length, downError: outcome.downError}}
    return {status: 409, body: {error: outcome.kind === 'empty' ? 'the answer is empty' : outcome.kind === 'no-question' ? `${agent} has no open question` : outcome.kind === 'vanished' ? 'the question disappeared while writing' : 'the plan has conflict markers'}}
  } finally {
    store.close()
  }
}

/** POST /api/edit {plan, agent, edit}: re-queue, retry or skip, the hand edit through the store. */
export async function postEdit(plans: ServedPlans, body: Record<string, unknown>): Promise<Reply> {
  const index = planOf(plans, body.plan)
  if (typeof index !== 'number') return index
  const {agent, edit} = body
  if (typeof agent !== 'string' || !agentId.test(agent) || !rowEdits.includes(edit as RowEdit)) return {status: 400, body: {error: `expected {plan, agent, edit: ${rowEdits.join('|')}}`}}
  const outcome = await applyRowEdit(plans.plans[index]!.file, agent, edit as RowEdit)
  if (outcome.kind === 'written') return {status: 200, body: {agent, status: outcome.status}}
  return {status: 409, body: {error: outcome.kind === 'unknown-agent' ? `no agent ${agent}` : `${edit} does not apply to ${agent} (${outcome.status})`}}
}

/** POST /api/review {plan, agent, decision: approve|reject, note}: what `mdplan review` does. */
export async function postReview(plans: ServedPlans, body: Record<string, unknown>): Promise<Reply> {
  const index = planOf(plans, body.plan)
  if (typeof index !== 'number') return index
  const {agent, decision, note} = body
  const valid = typeof agent === 'string' && agentId.test(agent) && (decision === 'approve' || (decision === 'reject' && typeof note === 'string'))
  if (!valid) return {status: 400, body: {error: 'expected {plan, agent, decision: approve|reject, note (with reject)}'}}
  const outcome = await applyReview(plans.plans[index]!.file, agent, decision === 'approve' ? {kind: 'approve'} : {kind: 'reject', note: note as string})
  if (outcome.kind === 'written') return {status: 200, body: {agent, status: outcome.row.status}}
  return {status: 409, body: {error: outcome.kind === 'unknown-agent' ? `no agent ${agent}` : `${agent} does not await review (${outcome.status})`}}
}
