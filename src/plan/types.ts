/**
 * The plan model: what `parsePlan` produces and every other stage reads.
 *
 * Offsets are indices into `Plan.text` (the file's text without its byte-order
 * mark), so `text.slice(start.offset, end.offset)` is the element's source.
 * Lines and columns are 1-based, as in unist.
 */

export interface Point {
  line: number
  column: number
  offset: number
}

export interface Span {
  start: Point
  end: Point
}

export type Severity = 'error' | 'warning' | 'info'

/** One problem with a plan, in the vfile-message shape (`file:line:col: reason [rule]`). */
export interface Diagnostic {
  severity: Severity
  /** Stable kebab-case rule id, e.g. `unknown-dependency`. */
  rule: string
  reason: string
  /** The file the problem is in (the plan or its prompts file). */
  file: string
  place?: Span | Point
}

export const statuses = ['pending', 'in_progress', 'completed', 'failed', 'needs_input', 'awaiting_review'] as const
export type Status = (typeof statuses)[number]

/** Settings from front matter (command-line flags win over them). */
export interface Settings {
  runner?: string
  concurrency?: number
  maxAttempts?: number
  /** Milliseconds. */
  agentTimeout?: number
  /** Milliseconds one agent may keep the run paused in total (rate limits, network trouble). */
  maxPause?: number
  build?: string
  model?: string
  permissionMode?: string
  allowedTools?: string[]
  maxTurns?: number
  maxBudgetUsd?: number
  isolation?: 'worktree' | 'none'
  commit?: boolean
  /** `review`: every agent's work waits for a person's approval before it is merged and its dependants start (an agent's own `review:` wins). */
  review?: boolean
  /** `wait_for_reset`: when only a usage limit's reset stands before the next launch, wait for it instead of ending the run. */
  waitForReset?: boolean
  /** `budget`: what all the agents may spend in all, across runs (tokens, dollars, or both). */
  budget?: Budget
  /** `budget_warn`: the share of the budget (0 to 1) at which the run says so (default 0.8). */
  budgetWarn?: number
  /** `on_budget`: at 100 %, let the running agents finish (`finish`, the default) or end them as Ctrl-C does (`stop`). */
  onBudget?: 'finish' | 'stop'
  /**
   * `accounts`: the most agents of a runner that may run at once on one account (the runner on a host), by
   * runner name (lower case); where the key is, and where each entry is (docs/limits.md, "Accounts").
   */
  accounts?: {caps: Record<string, number>; position: Point; entries: Record<string, Point>}
  /** `template_data_programs`: programs the plan says take prompt text as data (the template rule lets placeholders reach them), and where it says so. */
  templateDataPrograms?: {names: string[]; position: Point}
  /** Every key of the front matter, as parsed (other tools share front matter). */
  raw: Record<string, unknown>
  /** Where the front matter is, when there is one. */
  position?: Span
  /** Where its `runner:` key is, when it has one (a message about the plan's runner points there). */
  runnerPosition?: Point
}

/** A budget: the most tokens, dollars, or both, that may be spent (docs/limits.md, "Budgets"). */
export interface Budget {
  tokens?: number
  usd?: number
}

/** A reference to another agent, as written in `depends_on` / `soft_depends_on`. */
export interface AgentRef {
  id: string
  position: Span
}

/** A path in `creates` / `modifies` / `deletes`. */
export interface PathRef {
  path: string
  /** A trailing parenthetical such as `(if no ErrorBoundary exists)`. */
  annotation?: string
  position: Span
}

export interface Field {
  /** Normalized key: lower case, words joined by `_` (`Depends on` → `depends_on`). */
  key: string
  /** The key as written. */
  rawKey: string
  /** The value as written (for block values such as `prompt: |`, the de-indented block). */
  value: string
  position: Span
}

export interface Prompt {
  /** The prompt, verbatim (de-indented when it was an indented block). */
  text: string
  /** `inline`: `prompt: |` block; `fence`: a fenced block under the key; `rest`: the section after the field list; `prompts-file`: from a two-file plan. */
  source: 'inline' | 'fence' | 'rest' | 'prompts-file'
  /** The file the prompt was read from (the plan or its prompts file). */
  file: string
  position: Span
}

export interface Agent {
  id: string
  name: string
  /** The `### ID: name` heading. */
  position: Span
  /** The whole agent section, heading to the next heading of depth ≤ 3. */
  section: Span
  dependsOn: AgentRef[]
  softDependsOn: AgentRef[]
  creates: PathRef[]
  modifies: PathRef[]
  deletes: PathRef[]
  prompt?: Prompt
  /** Milliseconds, from `estimated_duration`. */
  estimatedMs?: number
  /** Per-agent overrides: `runner`, `model`, `isolation`, `commit`, … (raw strings). */
  fields: Record<string, Field>
}

/** A fenced `bash`/`sh` block in a section that runs commands. */
export interface Command {
  lang: string
  script: string
  position: Span
}

/** One `Started:` / `Last updated:` / `Build:` / … line after the table. */
export interface MetaLine {
  /** Normalized key (`started`, `last_updated`, `build`, `integration`, `tests`, …). */
  key: string
  rawKey: string
  value: string
  /** The whole line, without its line ending. */
  position: Span
}

export interface StateCell {
  /** Unescaped, trimmed cell text (`\|` → `|`). */
  value: string
  /** The cell as written between its pipes, padding included. */
  raw: string
  position: Span
}

export interface StateRow {
  /** The `Agent` cell. */
  agent: string
  /** Lower-cased status, or undefined when the cell is not a known status. */
  status?: Status
  /** The status cell as written. */
  statusRaw: string
  /** One cell per column, in column order (missing trailing cells are empty). */
  cells: StateCell[]
  /** The whole row line, without its line ending. */
  position: Span
}

export interface StateTable {
  /** Header cells as written (trimmed), e.g. `['Agent', 'Status', 'Agent ID', 'Duration', 'Notes']`. */
  columns: string[]
  /** Index of the standard columns in `columns`, -1 when missing. */
  index: {agent: number; status: number; agentId: number; duration: number; notes: number}
  /** The header line. */
  header: StateCell[]
  /** The delimiter row, as written. */
  delimiter: Span
  rows: StateRow[]
  position: Span
}

/** The `## Execution State` section. */
export interface StateSection {
  /** The `## Execution State` heading. */
  heading: Span
  /** From the heading to the next heading of depth ≤ 2 (or the end of the file). */
  section: Span
  table?: StateTable
  meta: MetaLine[]
}

/** A `## Name` section (H2) of the plan, e.g. `Shared Contract`. */
export interface Section {
  title: string
  heading: Span
  /** Heading to next heading of depth ≤ 2. */
  section: Span
  /** The section's body (after the heading line), verbatim. */
  body: string
}

export interface Plan {
  /** The plan's path, as given. */
  file: string
  /** The file's text without its byte-order mark; every offset indexes this string. */
  text: string
  bom: boolean
  /** `\r\n` when the file's first line ending is CRLF, else `\n`. */
  eol: '\n' | '\r\n'
  /** Whether the text ends with a line ending. */
  finalNewline: boolean
  /** The `# ` title without a `Parallel Plan:` prefix, when there is one. */
  title?: string
  settings: Settings
  agents: Agent[]
  /** H2 sections by title as written (`Shared Contract`, `Prompt Preamble`, `DAG Visualization`, …). */
  sections: Section[]
  preVerification: Command[]
  integrationTests: Command[]
  /** Two-file plans: the `**Prompts:** path` line (path resolved against the plan's folder). */
  promptsFile?: {path: string; position: Span}
  state?: StateSection
  /** `## Open Questions`, when present. */
  openQuestions?: Section
  /** Every problem found while parsing (validation adds more). */
  messages: Diagnostic[]
}
