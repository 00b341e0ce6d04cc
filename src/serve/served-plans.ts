import {existsSync, readdirSync, readFileSync, statSync, watch, type FSWatcher} from 'node:fs'
import {basename, dirname, join, relative, resolve} from 'node:path'
import {loadPlan} from '../plan/load-plan.js'
import {childPlanPath} from '../plan/child-plan-path.js'
import {loggedAttempts} from '../layout/logged-attempts.js'
import {logFile} from '../layout/log-file.js'
import type {Agent} from '../plan/types.js'
import {planView, type AgentView, type PlanView} from './plan-view.js'
import {readServedPlan, type ServedRead} from './read-served-plan.js'
import {coalesce, type Coalesced} from './coalesce.js'

/** One plan the server shows: named at start, or a child plan of one (`parent` is its parent's index). */
export interface ServedPlan {
  file: string
  /** As the page names it: relative to the folder the server started in. */
  name: string
  parent?: number
  /** The parent's agent that runs it. */
  agent?: string
}

interface Cached {
  stamp: string
  view?: PlanView
  error?: string
}

/** Hears that plan `index` changed; a promise it returns is awaited by `drain`. */
export type ChangeListener = (index: number) => void | Promise<void>

/**
 * The plans a server shows, and nothing else: only these files (and their logs) are ever read for a request.
 * Views are read again only when a file's stamp changes, and then only the table when nothing else changed
 * (`readServedPlan`); the time each agent entered its status is the first moment this server saw it there (or
 * its latest log's time, for an agent that already was). `onChange` hears of changes, from fs.watch on the
 * plans' folders and a poll of their stamps (watching misses some), at most once per `spacingMs` per plan while
 * they keep coming, and always of the last (`coalesce`).
 */
export class ServedPlans {
  readonly plans: ServedPlan[]
  readonly #cache = new Map<number, Cached>()
  readonly #reads = new Map<number, ServedRead>()
  /** Each plan's agent views, kept while its parse is (`planView`'s memo). */
  readonly #memos = new Map<number, Map<string, {key: string; view: AgentView}>>()
  readonly #since = new Map<string, {status: string; at: number}>()
  readonly #listeners = new Set<ChangeListener>()
  readonly #pending = new Set<Promise<void>>()
  #watchers: FSWatcher[] = []
  #poll: NodeJS.Timeout | undefined
  #changes: Coalesced[] = []
  #check: (index: number) => void = () => undefined

  private constructor(plans: ServedPlan[]) {
    this.plans = plans
  }

  /** The plans named (files, or folders: their plans), each followed by its child plans, as deep as they go. */
  static async open(named: readonly string[], cwd: string): Promise<ServedPlans> {
    const plans: ServedPlan[] = []
    const add = async (plan: ServedPlan): Promise<void> => {
      if (plans.some((known) => known.file === plan.file)) return
      const index = plans.push(plan) - 1
      let agents: Agent[]
      try {
        agents = (await loadPlan(plan.file, {cache: false})).agents
      } catch {
        return
      }
      for (const agent of agents) {
        const child = childPlanPath(plan.file, agent)
        if (child && existsSync(child)) await add({file: child, name: relative(cwd, child) || basename(child), parent: index, agent: agent.id})
      }
    }
    for (const arg of named.length > 0 ? named : ['.']) {
      const path = resolve(cwd, arg)
      if (!existsSync(path)) throw new Error(`no such plan or folder: ${arg}`)
      const files = statSync(path).isDirectory() ? plansIn(path) : [path]
      for (const file of files) await add({file, name: relative(cwd, file) || basename(file)})
    }
    return new ServedPlans(plans)
  }

  /** The view of plan `index`, read again only when its file changed; an unreadable plan is an error message. */
  async view(index: number): Promise<{view?: PlanView; error?: string}> {
    const plan = this.plans[index]!
    const stamp = fileStamp(plan.file)
    const cached = this.#cache.get(index)
    if (cached && cached.stamp === stamp) return cached
    let next: Cached
    try {
      const read = await readServedPlan(plan.file, this.#reads.get(index))
      this.#reads.set(index, read)
      if (read.parsed) this.#memos.set(index, new Map())
      const attempts = loggedAttempts(plan.file, dirname(plan.file))
      const view = planView(read.plan, plan.name, {attempts, table: read.table, memo: this.#memos.get(index)!})
      for (const agent of view.agents) agent.since = this.#sinceOf(plan.file, agent)
      next = {stamp, view}
    } catch (error) {
      next = {stamp, error: error instanceof Error ? error.message : String(error)}
    }
    this.#cache.set(index, next)
    return next
  }

  #sinceOf(file: string, agent: AgentView): number {
    const key = `${file}\0${agent.id}`
    const seen = this.#since.get(key)
    if (!seen || seen.status !== agent.status) this.#since.set(key, {status: agent.status, at: seen ? Date.now() : (logTime(file, agent.id, agent.attempt, agent.status) ?? Date.now())})
    return Math.round(this.#since.get(key)!.at)
  }

  onChange(listener: ChangeListener): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /**
   * Start watching: fs.watch on each plan's folder, and a poll of every plan's stamp each `pollMs`; listeners
   * hear of a plan's changes at most once per `spacingMs` while they keep coming, and of the last one always.
   */
  watch(pollMs = 1000, spacingMs = 250): void {
    const stamps = this.plans.map((plan) => fileStamp(plan.file))
    this.#changes = this.plans.map((_, index) => coalesce(() => this.#tell(index), spacingMs))
    const check = (this.#check = (index: number): void => {
      const stamp = fileStamp(this.plans[index]!.file)
      if (stamp === stamps[index]) return
      stamps[index] = stamp
      this.#changes[index]!.poke()
    })
    for (const folder of new Set(this.plans.map((plan) => dirname(plan.file)))) {
      try {
        // The folder, not the file: an atomic write replaces the file, and a watch of the old one hears nothing more.
        const watcher = watch(folder, () => this.plans.forEach((plan, index) => dirname(plan.file) === folder && check(index)))
        watcher.on('error', () => undefined)
        this.#watchers.push(watcher)
      } catch {}
    }
    this.#poll = setInterval(() => this.plans.forEach((_, index) => check(index)), pollMs)
    this.#poll.unref()
  }

  /**
   * Tell the listeners now of every change not told yet, and wait until they have done with it: a run's last
   * write reaches the page before its server closes.
   */
  async drain(): Promise<void> {
    this.plans.forEach((_, index) => this.#check(index))
    for (const changes of this.#changes) changes.flush()
    await Promise.all([...this.#pending])
  }

  #tell(index: number): void {
    for (const listener of this.#listeners) {
      const done = listener(index)
      if (!done) continue
      const settled: Promise<void> = done.catch(() => undefined).finally(() => this.#pending.delete(settled))
      this.#pending.add(settled)
    }
  }

  close(): void {
    for (const changes of this.#changes) changes.cancel()
    for (const watcher of this.#watchers) watcher.close()
    this.#watchers = []
    if (this.#poll) clearInterval(this.#poll)
  }
}

/** The Markdown files of a folder that look like plans (an `## Agents` heading). */
function plansIn(folder: string): string[] {
  return readdirSync(folder)
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(folder, name))
    .filter((file) => {
      try {
        return /^##\s+Agents\s*$/m.test(readFileSync(file, 'utf8'))
      } catch {
        return false
      }
    })
    .sort()
}

function fileStamp(file: string): string {
  try {
    const stat = statSync(file)
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`
  } catch {
    return 'absent'
  }
}

/** When an agent already in its status when the server started got there: its last log's start, or its end. */
function logTime(file: string, agent: string, attempt: number, status: string): number | undefined {
  if (attempt < 1 || status === 'pending') return undefined
  try {
    const stat = statSync(logFile(file, agent, attempt))
    return status === 'in_progress' ? stat.birthtimeMs || stat.ctimeMs : stat.mtimeMs
  } catch {
    return undefined
  }
}
