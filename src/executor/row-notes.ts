import {formatNotes, parseNotes, type NoteItem} from '../plan/notes.js'
import {parseJobNote} from '../hosts/job-key.js'
import {spendFigure} from '../plan/spend-figure.js'

/** A job a row names (`job: build1 mdplan13-…`): the host it runs on and its key there. */
export interface JobNote {
  host: string
  key: string
}

/**
 * The row's `work:` note: where the agent's session and its work stay between its attempts, written when
 * an attempt ends that the next one goes on from (a question, a session that could not be resumed, a
 * pause). On a remote host it names the job whose folder holds them (`work: build1 mdplan13-…-A-a1-3f9c1a`):
 * a CLI keeps its sessions on the machine it ran on, by the folder it ran in (claude's
 * `~/.claude/projects/<cwd>/`), so the next attempt must run there, in that folder. `work: local` for an
 * agent of this machine in a plan that declares hosts.
 */
export interface WorkNote {
  host: string
  /** The job whose folder holds them, on a remote host. */
  key?: string
}

/**
 * What the executor knows of a row's Notes, as values. The cell's text is read into these once, where the
 * table comes from the store (exec-row.ts), and rendered from them where it goes back; in between the
 * executor reads and sets fields, never text. Each field is the value of the cell's first item of its key,
 * as it reads (a `job:` that names no job reads as none).
 *
 * The bytes are the contract (a person reads and diffs this cell), so a row keeps the cell's items in their
 * order and spelling: an item the executor does not know (a person's free text, `scope:`, `commit:`,
 * `slurm:`) stays as it was, and a cell nothing was set in is written back as it was read. Setting a field
 * does what editing the text did: every item of its key goes, and the new one is added at the end. A
 * value set is held as the next run will read it from the file (a cost to four decimals, a value in one
 * line), so this run and the next decide alike.
 */
export interface RowNotes {
  /** Failed attempts, `attempt N: reason`: the number, and why it failed (the last item of a number). */
  readonly attempts: ReadonlyMap<number, string>
  /** The job the attempt runs as, named before it is submitted (the write-ahead log). */
  readonly job?: JobNote
  /** The host the agent last ran on. */
  readonly host?: string
  readonly work?: WorkNote
  /** The commit the agent's work starts from. */
  readonly base?: string
  /** Why the agent waits (a limit, the network), and until when. */
  readonly paused?: string
  /** Why the agent was launched anew rather than resumed. */
  readonly relaunched?: string
  /** The open question it waits on, in one line. */
  readonly question?: string
  readonly checkpoint?: string
  /** What the agent has cost in all, in dollars. */
  readonly cost?: number
  /** The tokens the agent has used in all (input, output and cache, as its CLI counts them). */
  readonly tokens?: number
  readonly blockedBy?: string
  readonly softBlockedBy?: string
  /** What an edit of the row met (docs/plan-format.md: the conflict is noted in the row). */
  readonly conflict?: string
  readonly result?: string
  /** A child plan's progress (`3/7 completed`). */
  readonly child?: string
  /** The review gate (docs/review.md): `waiting` (its work held for a person), `approved`, or `rejected: <note>`. */
  readonly review?: string
  /** The agent's own budget is spent (`2.1M of 2M tokens`): it launches no more until the budget is raised. */
  readonly budgetReached?: string
  /** The cell's items in order: an item as read keeps its text; one set since is rendered from its field. */
  readonly items: readonly Item[]
  /** The cell as read, while nothing has been set in it: written back byte for byte. */
  readonly source?: string
}

/** The fields of one value each, by name. */
type Single = Exclude<keyof RowNotes, 'attempts' | 'items' | 'source'>

/** Fields to set, in order (`undefined` removes one). */
export type NotesPatch = {[F in Single]?: RowNotes[F] | undefined}

/**
 * An item of the cell. Read from it: its key and its text as written (`raw`). Set since: its key, and
 * its value's text only when the field does not hold that value (a text that reads as no value of the
 * field, or as another one); otherwise the field's value is rendered.
 */
interface Item {
  readonly key?: string
  readonly raw?: string
  /** Read: the value as read (an `attempt 02:` stands for attempt 2 when `attempt 2:` goes). Set: see above. */
  readonly text?: string
}

interface Codec<T> {
  key: string
  /** The item's value as the field holds it; undefined when the text names none. */
  read: (text: string) => T | undefined
  write: (value: T) => string
}

const plain = {read: (text: string): string => text, write: (value: string): string => value}
const codecs: {[F in Single]-?: Codec<NonNullable<RowNotes[F]>>} = {
  job: {key: 'job', read: parseJobNote, write: (job) => `${job.host} ${job.key}`},
  host: {key: 'host', ...plain},
  work: {key: 'work', read: readWork, write: (work) => (work.key === undefined ? work.host : `${work.host} ${work.key}`)},
  base: {key: 'base', ...plain},
  paused: {key: 'paused', ...plain},
  relaunched: {key: 'relaunched', ...plain},
  question: {key: 'question', ...plain},
  checkpoint: {key: 'checkpoint', ...plain},
  // A person's `cost: abc` reads as nothing spent, as it always has; a figure reads as `status` reads it (`21,002`, `21k`).
  cost: {key: 'cost', read: (text) => spendFigure('cost', text) ?? 0, write: (cost) => `$${cost.toFixed(4)}`},
  tokens: {key: 'tokens', read: (text) => spendFigure('tokens', text) ?? 0, write: (tokens) => String(Math.round(tokens))},
  blockedBy: {key: 'blocked by', ...plain},
  softBlockedBy: {key: 'soft-blocked by', ...plain},
  conflict: {key: 'conflict', ...plain},
  result: {key: 'result', ...plain},
  child: {key: 'child', ...plain},
  review: {key: 'review', ...plain},
  budgetReached: {key: 'budget reached', ...plain}
}
const byKey = new Map<string, Single>(Object.entries(codecs).map(([field, codec]) => [codec.key, field as Single]))

/** `attempt 3` → 3. */
function attemptOfKey(key: string | undefined): number | undefined {
  const match = key === undefined ? null : /^attempt (\d+)$/.exec(key)
  return match ? Number(match[1]) : undefined
}

/** A Notes cell as the executor holds it (at the store's edge). */
export function readNotes(cell: string): RowNotes {
  const fields: Record<string, unknown> = {}
  const attempts = new Map<number, string>()
  const items: Item[] = []
  const seen = new Set<Single>()
  for (const item of parseNotes(cell)) {
    items.push(item.key === undefined ? {raw: item.raw} : {key: item.key, raw: item.raw, text: item.value})
    const attempt = attemptOfKey(item.key)
    if (attempt !== undefined) {
      attempts.set(attempt, item.value)
      continue
    }
    const field = item.key === undefined ? undefined : byKey.get(item.key)
    // The first item of a key is its value, as it always was.
    if (field === undefined || seen.has(field)) continue
    seen.add(field)
    const value = codecs[field].read(item.value)
    if (value !== undefined) fields[field] = value
  }
  return {...fields, attempts, items, source: cell}
}

const rendered = new WeakMap<RowNotes, string>()

/** The Notes cell of these notes (at the store's edge): as read when nothing was set, else item by item. */
export function renderNotes(notes: RowNotes): string {
  if (notes.source !== undefined) return notes.source
  let cell = rendered.get(notes)
  if (cell === undefined) {
    cell = formatNotes(notes.items.map((item) => toNoteItem(notes, item)))
    rendered.set(notes, cell)
  }
  return cell
}

function toNoteItem(notes: RowNotes, item: Item): NoteItem {
  if (item.raw !== undefined) return {key: item.key, value: '', raw: item.raw}
  return {key: item.key, value: item.text ?? valueText(notes, item.key!)}
}

/** A set item's value, rendered from its field. */
function valueText(notes: RowNotes, key: string): string {
  const attempt = attemptOfKey(key)
  if (attempt !== undefined) return notes.attempts.get(attempt)!
  const field = byKey.get(key)!
  return codecs[field].write(notes[field] as never)
}

/** The same notes, rendered alike (whatever was set to get there). */
export function sameNotes(a: RowNotes, b: RowNotes): boolean {
  return a === b || renderNotes(a) === renderNotes(b)
}

export const noNotes: RowNotes = readNotes('')

/** Set fields, in the patch's order; each goes to the end of the cell, as a new item. */
export function withNotes(notes: RowNotes, patch: NotesPatch): RowNotes {
  let next = notes
  for (const [field, value] of Object.entries(patch) as Array<[Single, unknown]>) {
    const codec = codecs[field] as Codec<unknown>
    next = put(next, codec.key, value === undefined ? undefined : codec.write(value))
  }
  return next
}

/** Record a failed attempt: `attempt N: reason`. */
export function withFailure(notes: RowNotes, attempt: number, reason: string): RowNotes {
  return put(notes, `attempt ${attempt}`, reason)
}

/**
 * Set an item given as text, by its key (what git and a host report: `base`, `commit`, `scope`, `slurm`).
 * A key the executor knows sets its field, as the text reads; any other is kept as an item of its own.
 */
export function withNoteText(notes: RowNotes, key: string, text: string | undefined): RowNotes {
  return put(notes, key, text)
}

/**
 * Every item of `key` goes (with `paused`, what older versions left of one: see isPauseFragment), then
 * the value, in one line, is added at the end; an empty value adds nothing. As plan/notes.ts's setNote
 * did on the text: the cell is rewritten item by item from here on.
 */
function put(notes: RowNotes, key: string, value: string | undefined): RowNotes {
  const items = notes.items.filter((item) => item.key !== key && !(key === 'paused' && isPauseFragment(item)))
  // Rewritten item by item from here on, as the text edits did (a `;` without its space gets one).
  const fields: Record<string, unknown> = {...notes, items, source: undefined}
  const attempt = attemptOfKey(key)
  const field = byKey.get(key)
  const clean = value?.replace(/\s*[\r\n]+\s*/g, ' ').trim()
  if (attempt !== undefined) {
    const attempts = new Map(notes.attempts)
    // Another spelling of its number (`attempt 02:`) stays, and stands for it.
    const other = items.findLast((item) => attemptOfKey(item.key) === attempt)
    if (other) attempts.set(attempt, other.text!)
    else attempts.delete(attempt)
    fields.attempts = attempts
  } else if (field !== undefined) fields[field] = undefined
  if (clean !== undefined && clean !== '') {
    if (attempt !== undefined) {
      ;(fields.attempts as Map<number, string>).set(attempt, clean)
      items.push({key})
    } else if (field !== undefined) {
      const codec = codecs[field] as Codec<unknown>
      const read = codec.read(clean)
      if (read !== undefined) fields[field] = read
      // The text, when the field's value would render otherwise (`cost: $1.5`) or there is none (`job: x`).
      items.push(read !== undefined && codec.write(read) === clean ? {key} : {key, text: clean})
    } else items.push({key, text: clean})
  }
  return fields as unknown as RowNotes
}

/**
 * What older versions left of a `paused` note whose `; retrying at …` was split off
 * (`retrying at 18: 37:20Z`): it belongs to the pause it followed and goes with it.
 */
function isPauseFragment(item: Item): boolean {
  if (item.key !== undefined) return item.key.startsWith('retrying at ')
  return item.raw !== undefined && item.raw.startsWith('retrying at ')
}

/** `work: build1 mdplan13-…` (the job folder on a host) or `work: local` (a host alone). */
function readWork(text: string): WorkNote | undefined {
  const value = text.trim()
  if (!value) return undefined
  return parseJobNote(value) ?? (/^\S+$/.test(value) ? {host: value} : undefined)
}
