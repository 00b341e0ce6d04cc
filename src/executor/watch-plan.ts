import {readFileSync, statSync} from 'node:fs'
import {resolve} from 'node:path'
import type {Agent, Plan} from '../plan/types.js'
import {definitionDigest} from '../plan/definition-digest.js'
import {onlyOtherSections, sectionDigests} from '../plan/section-digests.js'
import {longestRemainingPath} from '../plan/longest-remaining-path.js'
import {validatePlan} from '../plan/validate-plan.js'
import {describeHostEdits} from './describe-host-edits.js'
import {readAnswers, type OpenQuestion} from '../protocol/read-answers.js'
import {answeredBelow} from '../nested/answered-below.js'
import type {PlanStore} from '../store/plan-store.js'
import {mendReplacedLink, planLink} from '../store/mend-replaced-link.js'
import type {Input} from './exec-event.js'
import type {ExecState} from './exec-state.js'

export interface PlanWatch {
  /** The plan's definitions as last read (a person may add agents or edit prompts during a run). */
  readonly plan: Plan
  /** Events to start with: answers already written, files soft dependencies wait on. */
  initial(state: ExecState): Input[]
  /** A write of mdplan's is about to read the file: a save since the last one (which the poll may not have seen yet) is noted. */
  writing(): void
  /** A write of mdplan's is on disk: the file as it is now is known; `merged`: it merged a person's save. */
  wrote(merged?: boolean): void
  /** After a write that merged a person's save: what that save changed (agents, answers). */
  refresh(state: ExecState): Input[]
  /** After a write that failed. */
  unwritten(): Input[]
  /** One last look at the file before finishing. */
  look(): Promise<Input[]>
  stop(): void
}

/**
 * Watches the plan file while a run goes on: a person's save (the file's
 * identity changed since mdplan last wrote it) becomes a `file-changed`
 * event, which the executor merges with a write; after that write, an edit
 * to the agents' definitions becomes `plan-changed` and a written answer
 * `answers`. Files soft dependencies wait on are polled too.
 */
export function watchPlan(input: {
  store: PlanStore
  file: string
  cwd: string
  plan: Plan
  pollMs: number
  dispatch: (event: Input) => void
  state: () => ExecState
  /** Why a definition cannot be placed in this run (its `host` names a host the run lacks): reported, and held. */
  unplaceable?: (agent: Agent) => string | undefined
}): PlanWatch {
  const {store, file} = input
  let plan = input.plan
  let sections = sectionDigests(plan.text)
  let digest = definitionDigest(plan.text, sections)
  let seen = signature(file)
  // A plan run through a symlink: a save that replaces the link with a file is made a save of the target.
  const link = store.target !== file ? planLink(file, store.target) : undefined
  let foreign = false
  let looking = false
  let created = ''

  // Agents soft dependencies wait on, found once per version of the definitions (the poll asks often).
  let targets: {of: Plan; agents: Agent[]} | undefined
  const softTargets = (): Agent[] => {
    if (targets?.of !== plan) {
      const waitedOn = new Set(plan.agents.flatMap((agent) => agent.softDependsOn.map((dep) => dep.id)))
      targets = {of: plan, agents: plan.agents.filter((agent) => agent.creates.length > 0 && waitedOn.has(agent.id))}
    }
    return targets.agents
  }
  const filesEvent = (state: ExecState): Input[] => {
    const ids = softTargets()
      .filter((agent) => state.table.rows.get(agent.id)?.status !== 'completed')
      .filter((agent) => agent.creates.every((path) => exists(resolve(input.cwd, path.path))))
      .map((agent) => agent.id)
    const key = ids.join()
    if (key === created) return []
    created = key
    return [{type: 'files', created: new Set(ids)}]
  }
  // The plan is asked for only when someone waits for an answer: after a save it costs a parse.
  const answers = (state: ExecState, from: () => Plan): Input[] => {
    if (![...state.table.rows.values()].some((row) => row.status === 'needs_input')) return []
    const answered = new Map<string, OpenQuestion>()
    for (const entry of readAnswers(from())) {
      // A question passed up from a child plan may be answered in the child's own file.
      const answer = entry.answer ?? answeredBelow(file, entry.resumeState)
      if (answer !== undefined) answered.set(entry.agent, {...entry, answer})
    }
    return answered.size === 0 ? [] : [{type: 'answers', answered}]
  }
  const readText = (): string | undefined => {
    try {
      return readFileSync(file, 'utf8')
    } catch {
      return undefined
    }
  }
  const definitions = (): Input[] => {
    const text = readText()
    if (text === undefined) return []
    const nextSections = sectionDigests(text)
    const next = definitionDigest(text, nextSections)
    if (next === digest) return []
    digest = next
    // Only sections no launch reads changed (a line under `## Context`): the agents are as they were, and a
    // parse of the whole plan (about a second at 1000 agents) would tell nothing new.
    const before = sections
    sections = nextSections
    if (onlyOtherSections(before, sections)) return []
    const edited = store.plan
    const errors = [...edited.messages, ...validatePlan(edited)].filter((d) => d.severity === 'error')
    if (errors.length > 0) {
      const first = errors[0]!
      // A point, or a span's start (`unknown dependency` points at the reference): never an empty place.
      const point = first.place && ('line' in first.place ? first.place : 'start' in first.place ? first.place.start : undefined)
      const where = point ? `${point.line}:${point.column}` : '1:1'
      return [warning(`the plan was edited into an invalid one (${file}:${where}: ${first.reason}); the run keeps the agents as they were`)]
    }
    const hosts = describeHostEdits(plan, edited, input.unplaceable, file)
    const events: Input[] = [...describeEdit(plan, edited, input.state(), hosts.held).map(warning), ...hosts.messages.map(warning)]
    plan = edited
    events.push({type: 'plan-changed', agents: edited.agents, priority: longestRemainingPath(edited)})
    return events
  }

  const poll = setInterval(() => {
    const state = input.state()
    if (state.stopping) return
    if (link && mendReplacedLink(link)) {
      input.dispatch(warning(`${file}: a save replaced the link to ${link.target} with a file; that save was made one of ${link.target} (merged as an edit) and ${file} is a link again`))
    }
    const now = signature(file)
    if (now !== seen) {
      seen = now
      foreign = true
      input.dispatch({type: 'file-changed'})
    }
    if (softTargets().length > 0) for (const event of filesEvent(state)) input.dispatch(event)
  }, input.pollMs)
  poll.unref()

  return {
    get plan() {
      return plan
    },
    initial: (state) => [...answers(state, () => plan), ...filesEvent(state)],
    writing() {
      // The write merges a save that landed since mdplan's last write; what it changed is looked at after it.
      if (signature(file) !== seen) foreign = true
    },
    wrote(merged) {
      if (merged) foreign = true
      seen = signature(file)
    },
    refresh(state) {
      if (!foreign && !looking) return []
      foreign = false
      const events = [...definitions(), ...answers(state, () => store.plan)]
      if (looking) {
        looking = false
        events.push({type: 'looked'})
      }
      return events
    },
    unwritten() {
      if (!looking) return []
      looking = false
      return [{type: 'looked'}]
    },
    async look() {
      const now = signature(file)
      // Once per run, before finishing, the definitions are compared too: no edit to the agents is left unseen.
      if (now === seen && !foreign && definitionDigest(readText() ?? '') === digest) return [{type: 'looked'}]
      seen = now
      foreign = true
      looking = true
      return [{type: 'file-changed'}]
    },
    stop() {
      clearInterval(poll)
    }
  }
}

function warning(message: string): Input {
  return {type: 'warning', message}
}

/** What a person's edit changed in the agents, in words. */
function describeEdit(before: Plan, after: Plan, state: ExecState, held: ReadonlySet<string>): string[] {
  const old = new Map(before.agents.map((agent) => [agent.id, agent]))
  const messages: string[] = []
  const added = after.agents.filter((agent) => !old.has(agent.id) && !held.has(agent.id)).map((agent) => agent.id)
  if (added.length > 0) messages.push(`plan edited: ${added.join(', ')} added; ${added.length === 1 ? 'it runs' : 'they run'} when ready`)
  const removed = before.agents.filter((agent) => !after.agents.some((a) => a.id === agent.id)).map((agent) => agent.id)
  if (removed.length > 0) messages.push(`plan edited: ${removed.join(', ')} removed from ## Agents; ${removed.length === 1 ? 'its row is' : 'their rows are'} kept`)
  const running = removed.filter((id) => state.attempts.has(id))
  if (running.length > 0) messages.push(`plan edited: ${running.join(', ')} ${running.length === 1 ? 'was' : 'were'} running: ${running.length === 1 ? 'it finishes' : 'they finish'} as launched (work checked, committed or merged as usual) and ${running.length === 1 ? 'is' : 'are'} not launched again`)
  const changed = after.agents.filter((agent) => old.has(agent.id) && shape(old.get(agent.id)!) !== shape(agent)).map((agent) => agent.id)
  const live = changed.filter((id) => state.attempts.has(id))
  const waiting = changed.filter((id) => !state.attempts.has(id) && state.table.rows.get(id)?.status !== 'completed' && !held.has(id))
  if (live.length > 0) messages.push(`plan edited: ${live.join(', ')} changed while running; the change applies to ${live.length === 1 ? 'its' : 'their'} next attempt`)
  if (waiting.length > 0) messages.push(`plan edited: ${waiting.join(', ')} changed before launch; ${waiting.length === 1 ? 'it runs' : 'they run'} as edited`)
  return messages
}

function shape(agent: Agent): string {
  return JSON.stringify([agent.prompt?.text, agent.dependsOn.map((d) => d.id), agent.softDependsOn.map((d) => d.id), agent.fields && Object.entries(agent.fields).map(([k, v]) => [k, v.value])])
}

function signature(file: string): string {
  try {
    const stat = statSync(file)
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`
  } catch {
    return ''
  }
}

function exists(path: string): boolean {
  try {
    statSync(path)
    return true
  } catch {
    return false
  }
}
