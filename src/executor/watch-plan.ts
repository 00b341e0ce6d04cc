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
export function watchPlan(input: WatchInput): PlanWatch {
  return new PlanWatcher(input)
}

interface WatchInput {
  store: PlanStore
  file: string
  cwd: string
  plan: Plan
  pollMs: number
  dispatch: (event: Input) => void
  state: () => ExecState
  /** Why a definition cannot be placed in this run (its `host` names a host the run lacks): reported, and held. */
  unplaceable?: (agent: Agent) => string | undefined
}

class PlanWatcher implements PlanWatch {
  readonly #input: WatchInput
  #plan: Plan
  #sections: ReadonlyMap<string, string>
  #digest: string
  /** The file's identity when mdplan last wrote or looked at it. */
  #seen: string
  /** Someone else saved the file since mdplan's last write: what it changed is looked at after the next one. */
  #foreign = false
  /** The last look before finishing is under way. */
  #looking = false
  /** A plan run through a symlink: a save that replaces the link with a file is made a save of the target. */
  readonly #link: ReturnType<typeof planLink> | undefined
  readonly #files: SoftFiles
  readonly #poll: NodeJS.Timeout

  constructor(input: WatchInput) {
    this.#input = input
    this.#plan = input.plan
    this.#sections = sectionDigests(input.plan.text)
    this.#digest = definitionDigest(input.plan.text, this.#sections)
    this.#seen = signature(input.file)
    this.#link = input.store.target !== input.file ? planLink(input.file, input.store.target) : undefined
    this.#files = softFiles(input.cwd)
    this.#poll = setInterval(() => this.#tick(), input.pollMs)
    this.#poll.unref()
  }

  get plan(): Plan {
    return this.#plan
  }

  initial(state: ExecState): Input[] {
    return [...answers(this.#input.file, state, () => this.#plan), ...this.#files.events(this.#plan, state)]
  }

  writing(): void {
    // The write merges a save that landed since mdplan's last write; what it changed is looked at after it.
    if (signature(this.#input.file) !== this.#seen) this.#foreign = true
  }

  wrote(merged?: boolean): void {
    if (merged) this.#foreign = true
    this.#seen = signature(this.#input.file)
  }

  refresh(state: ExecState): Input[] {
    if (!this.#foreign && !this.#looking) return []
    this.#foreign = false
    const events = [...this.#definitions(), ...answers(this.#input.file, state, () => this.#input.store.plan)]
    if (this.#looking) {
      this.#looking = false
      events.push({type: 'looked'})
    }
    return events
  }

  unwritten(): Input[] {
    if (!this.#looking) return []
    this.#looking = false
    return [{type: 'looked'}]
  }

  async look(): Promise<Input[]> {
    const now = signature(this.#input.file)
    // Once per run, before finishing, the definitions are compared too: no edit to the agents is left unseen.
    if (now === this.#seen && !this.#foreign && definitionDigest(readText(this.#input.file) ?? '') === this.#digest) return [{type: 'looked'}]
    this.#seen = now
    this.#foreign = true
    this.#looking = true
    return [{type: 'file-changed'}]
  }

  stop(): void {
    clearInterval(this.#poll)
  }

  /** The poll: a save (the file's identity changed), a replaced link, the files soft dependencies wait on. */
  #tick(): void {
    const {file, dispatch} = this.#input
    const state = this.#input.state()
    if (state.stopping) return
    const link = this.#link
    if (link && mendReplacedLink(link)) {
      dispatch(warning(`${file}: a save replaced the link to ${link.target} with a file; that save was made one of ${link.target} (merged as an edit) and ${file} is a link again`))
    }
    const now = signature(file)
    if (now !== this.#seen) {
      this.#seen = now
      this.#foreign = true
      dispatch({type: 'file-changed'})
    }
    if (this.#files.targets(this.#plan).length > 0) for (const event of this.#files.events(this.#plan, state)) dispatch(event)
  }

  /** What a save changed in the agents' definitions: warnings, and the new agents for the executor. */
  #definitions(): Input[] {
    const {file, store} = this.#input
    const text = readText(file)
    if (text === undefined) return []
    const sections = sectionDigests(text)
    const next = definitionDigest(text, sections)
    if (next === this.#digest) return []
    this.#digest = next
    // Only sections no launch reads changed (a line under `## Context`): the agents are as they were, and a
    // parse of the whole plan (about a second at 1000 agents) would tell nothing new.
    const before = this.#sections
    this.#sections = sections
    if (onlyOtherSections(before, sections)) return []
    const edited = store.plan
    const invalid = invalidEdit(edited, file)
    if (invalid !== undefined) return [warning(invalid)]
    const hosts = describeHostEdits(this.#plan, edited, this.#input.unplaceable, file)
    const events: Input[] = [...describeEdit(this.#plan, edited, this.#input.state(), hosts.held).map(warning), ...hosts.messages.map(warning)]
    this.#plan = edited
    events.push({type: 'plan-changed', agents: edited.agents, priority: longestRemainingPath(edited)})
    return events
  }
}

/** A plan edited into one that does not validate: the run keeps the agents as they were, and says where. */
function invalidEdit(edited: Plan, file: string): string | undefined {
  const first = [...edited.messages, ...validatePlan(edited)].find((d) => d.severity === 'error')
  if (!first) return undefined
  // A point, or a span's start (`unknown dependency` points at the reference): never an empty place.
  const point = first.place && ('line' in first.place ? first.place : 'start' in first.place ? first.place.start : undefined)
  const where = point ? `${point.line}:${point.column}` : '1:1'
  return `the plan was edited into an invalid one (${file}:${where}: ${first.reason}); the run keeps the agents as they were`
}

interface SoftFiles {
  /** Agents soft dependencies wait on (that create files). */
  targets(plan: Plan): Agent[]
  /** A `files` event when the agents whose files all exist changed since the last one. */
  events(plan: Plan, state: ExecState): Input[]
}

/** The files soft dependencies wait on: the agents found once per version of the definitions (the poll asks often). */
function softFiles(cwd: string): SoftFiles {
  let found: {of: Plan; agents: Agent[]} | undefined
  let created = ''
  const targets = (plan: Plan): Agent[] => {
    if (found?.of !== plan) {
      const waitedOn = new Set(plan.agents.flatMap((agent) => agent.softDependsOn.map((dep) => dep.id)))
      found = {of: plan, agents: plan.agents.filter((agent) => agent.creates.length > 0 && waitedOn.has(agent.id))}
    }
    return found.agents
  }
  return {
    targets,
    events(plan, state) {
      const ids = targets(plan)
        .filter((agent) => state.table.rows.get(agent.id)?.status !== 'completed')
        .filter((agent) => agent.creates.every((path) => exists(resolve(cwd, path.path))))
        .map((agent) => agent.id)
      const key = ids.join()
      if (key === created) return []
      created = key
      return [{type: 'files', created: new Set(ids)}]
    }
  }
}

/** Answers under `## Open Questions`. The plan is asked for only when someone waits for one: after a save it costs a parse. */
function answers(file: string, state: ExecState, from: () => Plan): Input[] {
  if (![...state.table.rows.values()].some((row) => row.status === 'needs_input')) return []
  const answered = new Map<string, OpenQuestion>()
  for (const entry of readAnswers(from())) {
    // A question passed up from a child plan may be answered in the child's own file.
    const answer = entry.answer ?? answeredBelow(file, entry.resumeState)
    if (answer !== undefined) answered.set(entry.agent, {...entry, answer})
  }
  return answered.size === 0 ? [] : [{type: 'answers', answered}]
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return undefined
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
