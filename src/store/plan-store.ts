import fs from 'node:fs'
import {performance} from 'node:perf_hooks'
import {parsePlan, type PromptsSource} from '../plan/parse-plan.js'
import type {Plan, Section} from '../plan/types.js'
import {appendStateSection} from './append-state-section.js'
import {atomicWrite} from './atomic-write.js'
import {cleanTempFiles} from './clean-temp-files.js'
import {normalizeCell} from './escape-cell.js'
import {mergeState, type Conflict, type HumanEdit} from './merge-state.js'
import {renderState} from './render-state.js'
import {replaceSection} from './replace-section.js'
import {stateLayout, type StateLayout} from './state-layout.js'
import {cloneState, emptyRow, readMeta, readRows, tableStateFromPlan, type RowState, type TableState} from './table-state.js'

export interface WriteResult {
  /** What was written (after merging any hand edits): the executor adopts it. */
  state: TableState
  /** Cells a person changed since mdplan's last write (status edits are instructions). Meta lines have agent ''. */
  humanEdits: HumanEdit[]
  conflicts: Conflict[]
  bytes: number
  ms: number
}

export interface PlanStoreOptions {
  /** The clock that stamps `Last updated:` (tests pin it). */
  now?: () => Date
}

/** How many times a write starts over because the file changed under it before giving up. */
const maxAttempts = 50

/**
 * The plan file as a database: one write queue per plan, each write an atomic
 * rename that changes only the bytes mdplan owns and never undoes a person's
 * edit made meanwhile.
 *
 * Fast path: while the file on disk is byte-identical to what this store last
 * wrote, nothing is parsed; the new table is spliced from the layout kept from
 * the last render. A person's edit (the bytes differ) costs one parse and a
 * three-way merge against what mdplan last wrote.
 */
export class PlanStore {
  readonly file: string
  readonly #now: () => Date
  readonly #prompts: PromptsSource | undefined
  /** The file's bytes as mdplan last read or wrote them. */
  #bytes: Buffer
  #bom: boolean
  /** `#bytes` decoded, without the byte-order mark. */
  #text: string
  #plan: Plan | undefined
  #layout: StateLayout | undefined
  /** The table as mdplan last wrote it (or first read it): the base of every merge. */
  #base: TableState
  /** Whether the table in `#text` is exactly `#base` (no hand edit waits to be merged). */
  #clean = true
  #fileState: TableState | undefined
  #queue: Promise<unknown> = Promise.resolve()

  private constructor(file: string, bytes: Buffer, plan: Plan, prompts: PromptsSource | undefined, options: PlanStoreOptions) {
    this.file = file
    this.#now = options.now ?? (() => new Date())
    this.#prompts = prompts
    this.#bytes = bytes
    this.#bom = plan.bom
    this.#text = plan.text
    this.#plan = plan
    this.#layout = stateLayout(plan)
    this.#base = tableStateFromPlan(plan)
    this.#fileState = this.#base
  }

  /** Read and parse the plan, and remember its bytes as what mdplan last saw. Removes temp files a killed writer left. */
  static async open(file: string, options: PlanStoreOptions = {}): Promise<PlanStore> {
    cleanTempFiles(file)
    const bytes = await fs.promises.readFile(file)
    const source = bytes.toString('utf8')
    let plan = parsePlan(source, file)
    let prompts: PromptsSource | undefined
    if (plan.promptsFile) {
      try {
        prompts = {file: plan.promptsFile.path, source: await fs.promises.readFile(plan.promptsFile.path, 'utf8')}
        plan = parsePlan(source, file, prompts)
      } catch {
        // The loader reports a missing prompts file; the store only needs the plan.
      }
    }
    return new PlanStore(file, bytes, plan, prompts, options)
  }

  /** The latest parsed plan (parsed on demand after fast-path writes). */
  get plan(): Plan {
    this.#plan ??= this.#parse(this.#source())
    return this.#plan
  }

  /** What the file says now (after the last read or write). */
  get state(): TableState {
    this.#fileState ??= tableStateFromPlan(this.plan)
    return cloneState(this.#fileState)
  }

  /** Queue a write of `desired` (the executor's whole view of the table). Resolves after the atomic rename. */
  write(desired: TableState, options: {running: ReadonlySet<string>}): Promise<WriteResult> {
    return this.#enqueue(() => this.#write(desired, options.running))
  }

  /**
   * Queue a replacement of one H2 section: `render` gets the current section
   * (undefined: absent) and returns the whole new section, `## ` heading
   * included. An absent section goes at the end of the file, or just before
   * `## Execution State` when that is the last section.
   */
  editSection(title: string, render: (current: Section | undefined, plan: Plan) => string): Promise<WriteResult> {
    return this.#enqueue(() => this.#editSection(title, render))
  }

  #enqueue<T>(task: () => T): Promise<T> {
    const result = this.#queue.then(task)
    // One failed write must not stop the ones queued after it.
    this.#queue = result.catch(() => undefined)
    return result
  }

  #write(desired: TableState, running: ReadonlySet<string>): WriteResult {
    const started = performance.now()
    const want = this.#normalize(desired)
    const {bytes, result} = this.#commit((source, same) => {
      if (same && this.#clean && this.#layout) {
        const rendered = renderState(this.#layout, want)
        const {start, end} = this.#layout
        const text = this.#text.slice(0, start) + rendered.text + this.#text.slice(end)
        return {text, layout: rendered.layout, merged: {state: keepUnknown(want, this.#base), humanEdits: [], conflicts: []}}
      }
      const plan = same && this.#plan ? this.#plan : this.#parse(source())
      const merged = mergeState(this.#base, want, {rows: readRows(plan), meta: readMeta(plan)}, running)
      for (const agent of plan.agents) if (!merged.state.rows.has(agent.id)) merged.state.rows.set(agent.id, emptyRow())
      const layout = stateLayout(plan)
      if (!layout) return {text: appendStateSection(plan, merged.state), layout: undefined, merged}
      const rendered = renderState(layout, merged.state)
      return {text: plan.text.slice(0, layout.start) + rendered.text + plan.text.slice(layout.end), layout: rendered.layout, merged}
    })
    this.#base = result.merged.state
    this.#fileState = result.merged.state
    this.#clean = true
    return {state: cloneState(result.merged.state), humanEdits: result.merged.humanEdits, conflicts: result.merged.conflicts, bytes, ms: performance.now() - started}
  }

  #editSection(title: string, render: (current: Section | undefined, plan: Plan) => string): WriteResult {
    const started = performance.now()
    let touched = false
    const {bytes, result} = this.#commit((source, same) => {
      const plan = same && this.#plan ? this.#plan : this.#parse(source())
      touched = !same || !this.#clean
      const current = plan.sections.find((section) => section.title.trim().toLowerCase() === title.trim().toLowerCase())
      const edit = replaceSection(plan, title, render(current, plan))
      let layout: StateLayout | undefined
      const old = same ? this.#layout : undefined
      if (old && edit.end <= old.start) layout = {...old, start: old.start + edit.length - (edit.end - edit.start), end: old.end + edit.length - (edit.end - edit.start)}
      else if (old && edit.start >= old.end) layout = old
      if (old && !layout) touched = true
      return {text: edit.text, layout, merged: {state: this.#base, humanEdits: [], conflicts: []}}
    })
    this.#fileState = undefined
    // Hand edits to the table read here are merged by the next write.
    if (touched) this.#clean = false
    return {state: this.state, humanEdits: [], conflicts: [], bytes, ms: performance.now() - started}
  }

  /**
   * Read the file, let `produce` compute the new text, and write it atomically,
   * starting over whenever someone else wrote meanwhile:
   * - a rename landed between our read and our rename: the inode at the path is not the one we read;
   * - someone wrote in place into the file we read: its bytes differ after our rename. We still hold
   *   it open, so their bytes are not lost: they are merged on the next attempt, over what we just wrote.
   */
  #commit<T extends {text: string; layout: StateLayout | undefined}>(produce: (source: () => string, same: boolean) => T): {bytes: number; result: T} {
    let override: Buffer | undefined
    let expected: Buffer | undefined
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const fd = fs.openSync(this.file, 'r')
      try {
        const disk = readAll(fd)
        if (override && !disk.equals(expected!)) override = undefined
        const seen = override ?? disk
        const same = seen.equals(this.#bytes)
        const result = produce(() => (same ? this.#source() : seen.toString('utf8')), same)
        const bom = same ? this.#bom : seen[0] === 0xef && seen[1] === 0xbb && seen[2] === 0xbf
        const data = Buffer.from(bom ? '\uFEFF' + result.text : result.text, 'utf8')
        const mode = fs.fstatSync(fd).mode & 0o7777
        const ino = fs.fstatSync(fd).ino
        if (!atomicWrite(this.file, data, {mode, beforeRename: () => fs.statSync(this.file).ino === ino})) continue
        const after = readAll(fd)
        if (!after.equals(disk)) {
          override = after
          expected = data
          continue
        }
        this.#bytes = data
        this.#bom = bom
        this.#text = result.text
        this.#plan = undefined
        this.#layout = result.layout
        return {bytes: data.length, result}
      } finally {
        fs.closeSync(fd)
      }
    }
    throw new Error(`${this.file}: the file kept changing while mdplan tried to write it (${maxAttempts} attempts)`)
  }

  #source(): string {
    return (this.#bom ? '\uFEFF' : '') + this.#text
  }

  #parse(source: string): Plan {
    return parsePlan(source, this.file, this.#prompts)
  }

  /** Cells as they will read back; `Last updated:` stamped unless the caller set a new value itself. */
  #normalize(desired: TableState): TableState {
    const state = cloneState(desired)
    for (const row of state.rows.values()) {
      row.agentId = normalizeCell(row.agentId)
      row.duration = normalizeCell(row.duration)
      row.notes = normalizeCell(row.notes)
      for (const column of Object.keys(row.extra)) row.extra[column] = normalizeCell(row.extra[column]!)
    }
    if (state.meta.lastUpdated === undefined || state.meta.lastUpdated === this.#base.meta.lastUpdated) {
      state.meta.lastUpdated = this.#now().toISOString().replace(/\.\d{3}Z$/, 'Z')
    }
    return state
  }
}

/** Rows of the table the executor does not know stay, and stay in the state. */
function keepUnknown(want: TableState, base: TableState): TableState {
  let rows: Map<string, RowState> | undefined
  for (const [agent, row] of base.rows) {
    if (want.rows.has(agent)) continue
    rows ??= new Map(want.rows)
    rows.set(agent, row)
  }
  return rows ? {rows, meta: want.meta} : want
}

function readAll(fd: number): Buffer {
  const size = fs.fstatSync(fd).size
  const buffer = Buffer.allocUnsafe(size)
  let read = 0
  while (read < size) {
    const n = fs.readSync(fd, buffer, read, size - read, read)
    if (n === 0) break
    read += n
  }
  return read === size ? buffer : buffer.subarray(0, read)
}
