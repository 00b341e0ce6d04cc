import {existsSync, readdirSync, readFileSync, statSync, watch, type FSWatcher} from 'node:fs'
import {basename, dirname, join, relative, resolve} from 'node:path'
import {loadPlan} from '../plan/load-plan.js'
import {childPlanPath} from '../plan/child-plan-path.js'
import {loggedAttempts} from '../layout/logged-attempts.js'
import {logFile} from '../layout/log-file.js'
import type {Agent, Plan} from '../plan/types.js'
import {planView, type PlanView} from './plan-view.js'

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

/**
 * The plans a server shows, and nothing else: only these files (and their logs) are ever read for a request.
 * Views are parsed again only when a file's stamp changes; the time each agent entered its status is the first
 * moment this server saw it there (or its latest log's time, for an agent that already was). `onChange` hears
 * of every change, from fs.watch on the plans' folders and a poll of their stamps (watching misses some).
 */
export class ServedPlans {
  readonly plans: ServedPlan[]
  readonly #cache = new Map<number, Cached>()
  readonly #since = new Map<string, {status: string; at: number}>()
  readonly #listeners = new Set<(index: number) => void>()
  #watchers: FSWatcher[] = []
  #poll: NodeJS.Timeout | undefined

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

  /** The view of plan `index`, parsed again only when its file changed; an unreadable plan is an error message. */
  async view(index: number): Promise<{view?: PlanView; error?: string}> {
    const plan = this.plans[index]!
    const stamp = fileStamp(plan.file)
    const cached = this.#cache.get(index)
    if (cached && cached.stamp === stamp) return cached
    let next: Cached
    try {
      const parsed = await loadPlan(plan.file, {cache: false})
      const attempts = loggedAttempts(plan.file, dirname(plan.file))
      next = {stamp, view: planView(parsed, plan.name, {attempts, since: this.#stamps(plan.file, parsed)})}
    } catch (error) {
      next = {stamp, error: error instanceof Error ? error.message : String(error)}
    }
    this.#cache.set(index, next)
    return next
  }

  #stamps(file: string, parsed: Plan): Map<string, number> {
    const out = new Map<string, number>()
    const now = Date.now()
    for (const agent of planView(parsed, file).agents) {
      const key = `${file}\0${agent.id}`
      const seen = this.#since.get(key)
      if (!seen || seen.status !== agent.status) this.#since.set(key, {status: agent.status, at: seen ? now : (logTime(file, agent.id, agent.attempt, agent.status) ?? now)})
      out.set(agent.id, Math.round(this.#since.get(key)!.at))
    }
    return out
  }

  onChange(listener: (index: number) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** Start watching: fs.watch on each plan's folder, and a poll of every plan's stamp each `pollMs`. */
  watch(pollMs = 1000): void {
    const stamps = this.plans.map((plan) => fileStamp(plan.file))
    const check = (index: number): void => {
      const stamp = fileStamp(this.plans[index]!.file)
      if (stamp === stamps[index]) return
      stamps[index] = stamp
      for (const listener of this.#listeners) listener(index)
    }
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

  close(): void {
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
