import fs from 'node:fs'
import {performance} from 'node:perf_hooks'
import {loadPlan} from '../plan/load-plan.js'
import {parsePlan, type PromptsSource} from '../plan/parse-plan.js'
import {readPromptsSource} from './read-prompts-source.js'
import {staleStartNotice} from './stale-start-notice.js'
import type {Plan, Section} from '../plan/types.js'
import {cleanTempFiles} from './clean-temp-files.js'
import {commitFile, type Committed, type Produced} from './commit-file.js'
import {locateStateSection} from './locate-state-section.js'
import {outsideOf} from './merge-outside.js'
import {mergeSaved, withAgents, type SavedContext} from './merge-saved.js'
import type {Conflict, HumanEdit} from './merge-state.js'
import {planTarget} from './plan-target.js'
import {readSection} from './read-section.js'
import {renderStamped} from './render-stamped.js'
import type {RenderedState} from './render-state.js'
import {spliceLines} from './splice-lines.js'
import {replaceSection, type SectionEdit} from './replace-section.js'
import {stateLayout, type StateLayout} from './state-layout.js'
import {normalizeState} from './normalize-state.js'
import {withUnknown} from './with-unknown.js'
import type {WriteOptions} from './write-options.js'
import type {WriteResult} from './write-result.js'
import {sameSectionText} from './same-section-text.js'
import {callersNotes} from './callers-notes.js'
import {cloneState, tableStateFromPlan, type TableState} from './table-state.js'
import {WrittenVersions} from './written-versions.js'
import {VersionHistory} from './version-history.js'
import {ConflictedPlanError} from './conflicted-plan-error.js'
import type {PlanStoreOptions} from './plan-store-options.js'
import {sameStateSection} from './state-section-text.js'

export {DamagedTableError} from './damaged-table-error.js'
export type {WriteOptions} from './write-options.js'
export type {WriteResult} from './write-result.js'

export type {PlanStoreOptions} from './plan-store-options.js'

/**
 * The plan file as a database: one write queue per plan, each write an atomic
 * rename (beside a symlink's target) that changes only the bytes mdplan owns,
 * never undoes a person's edit, and is skipped when it would change nothing.
 *
 * While the file is byte-identical to what this store last wrote, nothing is
 * parsed: the table is spliced from the layout kept from the last render. A
 * save by someone else costs a read of the state section alone: a section
 * mdplan wrote before is a stale buffer (only the text around it may hold an
 * edit); any other is merged cell by cell from the version it started from.
 * `Last updated:` is the store's: stamped, in the file's format, only when
 * something else in the section changed.
 */
export class PlanStore {
  readonly file: string
  /** Where writes go: the file, or the file a symlink points at. */
  readonly target: string
  readonly #now: () => Date
  readonly #prompts: PromptsSource | undefined
  readonly #agents: string[]
  readonly #giveUpAfterMs: number
  /** The file's bytes as mdplan last read or wrote them. */
  #bytes: Buffer
  #bom: boolean
  #textCache: string | undefined
  #plan: Plan | undefined
  /** Where the state section is in `#bytes`, and how its table is written. */
  #layout: StateLayout | undefined
  #sectionBytes: {start: number; end: number} | undefined
  /** The table as mdplan last wrote (or first read) it: the base of every merge. */
  #base: TableState
  /** Whether the table in `#bytes` is exactly `#base` (no hand edit waits to be merged). */
  #clean = true
  /** Whether `#layout` has a line for every row of `#base` (not so at open: agents with no row yet). */
  #covered = false
  #fileState: TableState | undefined
  /** Whether the file had a state table since the store opened it: one that goes away is damage, not absence. */
  #hadTable: boolean
  readonly #versions: WrittenVersions
  #notices: string[] = []
  readonly #file = {displaced: [] as Array<{fd: number; bytes: Buffer}>, late: [] as Array<{from: Buffer; to: Buffer}>, ancestry: [] as Buffer[]}
  #queue: Promise<unknown> = Promise.resolve()

  private constructor(file: string, bytes: Buffer, plan: Plan, prompts: PromptsSource | undefined, options: PlanStoreOptions & {committedText?: string}) {
    this.file = file
    this.target = planTarget(file)
    this.#now = options.now ?? (() => new Date())
    this.#giveUpAfterMs = options.giveUpAfterMs ?? 60_000
    this.#prompts = prompts
    this.#agents = plan.agents.map((agent) => agent.id)
    this.#bytes = bytes
    this.#bom = plan.bom
    this.#textCache = plan.text
    this.#plan = plan
    this.#layout = stateLayout(plan)
    this.#hadTable = this.#layout !== undefined
    this.#base = tableStateFromPlan(plan)
    this.#fileState = this.#base
    this.#file.ancestry.push(bytes)
    // Versions earlier runs wrote or started from: a buffer or checkout that brings one back is no edit.
    this.#versions = new WrittenVersions(options.history ? new VersionHistory(file) : undefined)
    // A table an editor buffer brought back between runs (one an earlier run wrote mid-run) sets no row back.
    const start = this.#layout ? this.#versions.startingTable(plan.text.slice(this.#layout.start, this.#layout.end), this.#base, sameStateSection(options.committedText, plan.text)) : undefined
    if (start) this.#fileState = withAgents(this.#agents, start.state.rows, start.state.meta)
    if (start) this.#notices.push(staleStartNotice(file, start.kept))
    this.startsStale = start !== undefined
    this.#remember(plan.text, this.#base, true, start ? start.state : undefined)
  }

  /** The file's table at the open was a stale one: `state` is the last run's instead, and the first write must record it. */
  readonly startsStale: boolean

  /**
   * Read and parse the plan (`loadPlan`: a file that cannot be a plan is a
   * PlanError), and remember its bytes as what mdplan last saw. Removes temp
   * files a killed writer left.
   */
  static async open(file: string, options: PlanStoreOptions = {}): Promise<PlanStore> {
    cleanTempFiles(planTarget(file))
    for (let attempt = 0; ; attempt++) {
      const plan = await loadPlan(file)
      const bytes = await fs.promises.readFile(file)
      // Someone may save between the two reads: the bytes must be the parsed ones.
      if (bytes.toString('utf8') !== (plan.bom ? '\uFEFF' : '') + plan.text && attempt < 10) continue
      return new PlanStore(file, bytes, plan, await readPromptsSource(plan), {...options, committedText: await options.committed})
    }
  }

  /** The latest parsed plan (parsed on demand after writes). */
  get plan(): Plan {
    this.#plan ??= this.#parse(this.#text())
    return this.#plan
  }

  /** What the file says now (after the last read or write). */
  get state(): TableState {
    if (!this.#fileState) {
      const read = readSection(this.#text(), (text) => this.#parse(text))
      this.#fileState = read && 'layout' in read ? withAgents(this.#agents, read.rows, read.meta) : tableStateFromPlan(this.plan)
    }
    return cloneState(this.#fileState)
  }

  /**
   * Queue a write of `desired` (the executor's whole view of the table).
   * Resolves after the atomic rename, or at once when the merged table is what
   * the file already says. Rejects with DamagedTableError, writing nothing,
   * while a hand edit has left the table unreadable.
   */
  write(desired: TableState, options: WriteOptions): Promise<WriteResult> {
    return this.#enqueue(() => this.#write(desired, options))
  }

  /**
   * Queue a replacement of one H2 section: `render` gets the current section (undefined: absent) and returns
   * the whole new section, `## ` heading included (placed as replaceSection places it).
   */
  editSection(title: string, render: (current: Section | undefined, plan: Plan) => string): Promise<WriteResult> {
    const key = title.trim().toLowerCase()
    return this.editText((plan) => replaceSection(plan, title, render(plan.sections.find((section) => section.title.trim().toLowerCase() === key), plan)))
  }

  /** Queue an edit of the text outside the state section: `edit` gets the plan as the file has it now (the front matter's `budget`). */
  editText(edit: (plan: Plan) => SectionEdit): Promise<WriteResult> {
    return this.#enqueue(() => this.#editText(edit))
  }

  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(task)
    // One failed write must not stop the ones queued after it.
    this.#queue = result.catch(() => undefined)
    return result
  }

  async #write(desired: TableState, options: WriteOptions): Promise<WriteResult> {
    const {running} = options
    const started = performance.now()
    // What mdplan wants; once a write is on disk, what it wrote (a second
    // round, folding in an edit that raced the first, must not undo the first).
    const normalized = normalizeState(desired, this.#base, this.#layout?.columns)
    let mine = normalized.state
    // Rows not in it are the base's own: a layout that shows every row of the base needs to look at these alone.
    const changed = this.#covered ? normalized.changed : undefined
    const complete = normalized.hasBaseRows
    let merged = false
    const done = await this.#commit((seen, same, from) => {
      merged ||= !same
      // Rows of the table the executor does not know stay (none when it has a row for every agent of the base).
      const wanted = complete && mine === normalized.state ? mine : withUnknown(mine, this.#base)
      const produced = same && this.#clean && this.#layout ? this.#splice(wanted, seen, changed) : mergeSaved(this.#context(), mine, seen, running, from)
      const {committed} = produced
      return {...produced, committed: () => (committed?.(), (mine = produced.state!))}
    })
    const state = options.readOnly ? this.#base : callersNotes(cloneState(this.#base), desired, this.#layout?.columns)
    const notices = this.#notices.splice(0)
    return {state, humanEdits: done.humanEdits, conflicts: done.conflicts, bytes: done.bytes, ms: performance.now() - started, merged, ...(notices.length > 0 && {notices})}
  }

  /** The fast path: the file is what mdplan last wrote; the changed lines go into its bytes, nothing parsed. */
  #splice(mine: TableState, seen: Buffer, changed: readonly string[] | undefined): Produced {
    const layout = this.#layout!
    if (!this.#sectionBytes) {
      const text = this.#text()
      const start = (this.#bom ? 3 : 0) + Buffer.byteLength(text.slice(0, layout.start))
      this.#sectionBytes = {start, end: start + Buffer.byteLength(text.slice(layout.start, layout.end))}
    }
    const at = this.#sectionBytes
    const unchanged = (rendered: RenderedState): boolean => sameSectionText(layout, rendered.layout)
    return renderStamped({layout, state: mine, file: this.#base.meta, given: this.#base.meta.lastUpdated, now: this.#now, changed}, unchanged, (rendered) => {
      const spliced = spliceLines(seen, at, layout, rendered.layout)
      if (spliced) return {...spliced, section: spliced.data.subarray(spliced.sectionBytes.start, spliced.sectionBytes.end)}
      // Rows came or went: encode the whole section.
      const section = rendered.text
      const size = Buffer.byteLength(section)
      const data = Buffer.allocUnsafe(at.start + size + seen.length - at.end)
      seen.copy(data, 0, 0, at.start)
      data.write(section, at.start, 'utf8')
      seen.copy(data, at.start + size, at.end)
      return {data, sectionBytes: {start: at.start, end: at.start + size}, section}
    })
  }

  async #editText(produce: (plan: Plan) => SectionEdit): Promise<WriteResult> {
    const started = performance.now()
    let merged = false
    const done = await this.#commit((seen, same) => {
      merged ||= !same
      const plan = same && this.#plan ? this.#plan : this.#parse(seen.toString('utf8'))
      // A merge's conflict markers anywhere: a section written into the file would land in one side's text.
      ConflictedPlanError.refuse(plan)
      const edit = produce(plan)
      const old = same ? this.#layout : undefined
      const shift = edit.length - (edit.end - edit.start)
      let layout: StateLayout | undefined
      if (old && edit.end <= old.start) layout = {...old, start: old.start + shift, end: old.end + shift}
      else if (old && edit.start >= old.end) layout = old
      const data = Buffer.from(plan.bom ? '\uFEFF' + edit.text : edit.text, 'utf8')
      // A table someone edited meanwhile is merged by the next write.
      return {data, text: edit.text, layout, humanEdits: [], conflicts: [], clean: same && this.#clean && layout !== undefined}
    })
    return {state: this.state, humanEdits: done.humanEdits, conflicts: done.conflicts, bytes: done.bytes, ms: performance.now() - started, merged}
  }

  #commit(produce: (seen: Buffer, same: boolean, from?: Buffer) => Produced): Promise<{bytes: number; humanEdits: HumanEdit[]; conflicts: Conflict[]}> {
    return commitFile({target: this.target, file: this.file, giveUpAfterMs: this.#giveUpAfterMs, bytes: () => this.#bytes, io: this.#file, produce, adopt: (done) => this.#adopt(done)})
  }

  /** A version is on disk (written, or found to be what the write would have written). */
  #adopt({data, result}: Committed): void {
    this.#bytes = data
    this.#bom = data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf
    this.#textCache = result.text
    this.#sectionBytes = result.sectionBytes
    this.#plan = undefined
    this.#layout = result.layout
    if (result.layout) this.#hadTable = true
    if (result.state) {
      // A table written whole, or spliced from one that was: its lines show every row of the base.
      this.#covered = result.layout !== undefined
      this.#base = result.state
      this.#fileState = result.state
      this.#clean = true
    } else {
      this.#fileState = result.clean ? this.#base : undefined
      this.#clean = result.clean
    }
    // The edits first: a save of the version before them undoes them, one of this version does not.
    if (result.humanEdits.length > 0) this.#versions.edited(result.humanEdits)
    for (const notice of result.notices ?? []) if (notice.once === undefined || this.#versions.firstTime(notice.once)) this.#notices.push(notice.text)
    if (result.section !== undefined && result.sectionBytes) this.#versions.remember(result.section, this.#base, result.outside)
    else this.#remember(this.#text(), result.state ?? (result.clean ? this.#base : undefined))
    result.committed?.()
  }

  /** Record the version in `text`: its section, and the text around it. */
  #remember(text: string, state: TableState | undefined, open = false, startsFrom?: TableState): void {
    const span = this.#layout ? {start: this.#layout.start, end: this.#layout.end} : locateStateSection(text)
    // A table with a hand edit in it is not a version mdplan wrote: a save that brings it back is not stale.
    if (span) this.#versions.remember(state ? text.slice(span.start, span.end) : undefined, state, outsideOf(text, span.start, span.end), open, startsFrom)
  }

  /** Stop watching the files earlier writes replaced (a store needs no other cleanup). */
  close(): void {
    for (const displaced of this.#file.displaced) fs.closeSync(displaced.fd)
    this.#file.displaced = []
  }

  #text(): string {
    this.#textCache ??= this.#bytes.toString('utf8', this.#bom ? 3 : 0)
    return this.#textCache
  }

  #parse(source: string): Plan {
    return parsePlan(source, this.file, this.#prompts)
  }

  #context(): SavedContext {
    return {file: this.file, parse: (text) => this.#parse(text), hadTable: this.#hadTable, versions: this.#versions, base: this.#base, layout: this.#layout, agents: this.#agents, now: this.#now}
  }
}
