import type {Agent} from '../plan/types.js'
import type {AuthCheck, RemoteAuthInput} from './host-auth.js'

/** Options a runner may honour; each comes from a flag, the front matter or the agent's own fields. */
export interface RunnerOptions {
  model?: string
  permissionMode?: string
  allowedTools?: string[]
  maxTurns?: number
  maxBudgetUsd?: number
  /** Extra environment for the agent process. */
  env?: Record<string, string>
}

/** What the executor asks a runner to do: start (or resume) one attempt of one agent. */
export interface RunRequest {
  agent: Agent
  /** The assembled prompt (shared contract + preamble + the agent's prompt + retry context). */
  prompt: string
  /** Absolute path of the working directory the agent runs in. */
  cwd: string
  /** Absolute path of the plan file. */
  planFile: string
  /** 1-based attempt number. */
  attempt: number
  /** Absolute path of this attempt's log file: the runner appends the agent's full output to it. */
  logFile: string
  options: RunnerOptions
  /** Aborting kills the agent's whole process tree. */
  signal?: AbortSignal
  /** Kill the whole process tree after this many milliseconds. */
  timeoutMs?: number
  /**
   * The Agent ID to use, drawn earlier with `runner.newAgentId()`, so the
   * executor writes the row's status and ID in one write before spawning.
   */
  agentId?: string
  /**
   * Resume an earlier session instead of starting a new one: `sessionId` is the
   * Agent ID recorded in the table, `prompt` is then the follow-up message.
   */
  resume?: {sessionId: string}
  /**
   * Called as soon as the Agent ID is known (before spawning when the runner
   * chooses it, e.g. claude `--session-id`), so the table can record it before
   * the agent can finish. The runner awaits it before spawning when it can.
   */
  onAgentId?: (agentId: string) => void | Promise<void>
  /** Each line of the agent's human-readable output, for live views. */
  onOutput?: (line: string) => void
  /**
   * What the attempt has spent so far, each time its CLI says while it runs (running totals of this attempt):
   * opencode's `step_finish` steps, a script's `USAGE:` lines. claude, codex and gemini say it only at the end.
   * A budget spent while the agent runs stops it there (docs/limits.md, "Budgets").
   */
  onSpend?: (spent: {usage?: Record<string, number>; costUsd?: number}) => void
  /** For an agent that is a child plan: its share of the run's cap, and the parent run's flags to pass down. */
  child?: {concurrency: number; args: readonly string[]}
  /** A child plan's own events and progress (`child: 3/7 completed`). */
  onChildEvent?: (event: import('../events.js').RunEvent) => void
  onProgress?: (note: string) => void
  /** Where the command runs when not on this machine (src/hosts/): it streams the output lines back. */
  host?: {run: (command: import('../process/process-types.js').HostCommand) => Promise<import('../process/process-types.js').SpawnResult>}
}

/** What one attempt did, as the CLI reported it. The result protocol interprets `finalText`. */
export interface RunResult {
  /** The CLI's own verdict (e.g. claude: exit 0 and `is_error: false`). */
  ok: boolean
  agentId?: string
  /** The agent's final message (claude `result`, codex last `agent_message`, shell stdout). */
  finalText: string
  /** One line saying why, when `ok` is false. */
  reason?: string
  exitCode?: number
  signal?: string
  timedOut?: boolean
  /** Ended because `signal` was aborted (Ctrl-C). */
  interrupted?: boolean
  /** A rate or usage limit: retry later without burning an attempt. */
  rateLimited?: boolean
  /**
   * When that limit resets (ms since the epoch), when the CLI said (claude's `resets 3pm (Europe/Paris)`,
   * codex's `try again in 2 hours`, gemini's `retryDelay`, a provider's `retry-after`): the account waits
   * until then, and the attempt is not spent however long that is.
   */
  resetAt?: number
  /**
   * The CLI refused its configuration (not logged in, no API key, an option or
   * permission mode it rejects): retrying cannot help. Fail the agent once, with
   * `reason` saying what to run or set.
   */
  configError?: boolean
  /**
   * A passing trouble outside the agent (network down, server 5xx, overloaded):
   * like `rateLimited`, wait and retry without using an attempt.
   */
  transient?: boolean
  /** Resume failed because the CLI does not know the session: relaunch instead. */
  unknownSession?: boolean
  /** The CLI is missing or could not start. */
  spawnFailed?: boolean
  /** The host it ran on stayed unreachable longer than its lease (its name): the attempt failed there, it is retried elsewhere. */
  hostLost?: string
  /**
   * Its job never started the agent (a container left `created`, a queued job gone from the queue) and is
   * confirmed ended: retried under a new key without using an attempt (a few times at most).
   */
  notStarted?: boolean
  costUsd?: number
  turns?: number
  durationMs?: number
  /** Raw usage as the CLI reported it (tokens…), for the log and scorecard. */
  usage?: Record<string, number>
  /**
   * `usage` is a running total for the whole session (codex), not this run: diff
   * it with `usageDelta` against the previous run's totals of the same session.
   */
  cumulativeUsage?: boolean
  /** `costUsd` is a running total for the session (claude ≥ 2.1.330 after a resume): subtract the previous run's. */
  cumulativeCost?: boolean
  /** The CLI's version when it reports one (cost semantics differ between versions). */
  cliVersion?: string
}

export interface Runner {
  /** `claude`, `codex`, `gemini`, `opencode`, `shell`, or `command`. */
  name: string
  /** The executable, checked before anything launches (undefined: nothing to check). */
  executable?: string
  /** Environment variable that overrides `executable` (e.g. `MDPLAN_CLAUDE_BIN`): unusual installs and test fakes. */
  executableEnv?: string
  /** What to tell a person whose machine lacks `executable`. */
  install?: string
  /** Whether `run` honours `request.resume`. */
  canResume: boolean
  /**
   * The most of its agents that run at once on one account (this runner on one host) when neither the front
   * matter's nor the host's `accounts:` says: a login's quota is shared by every session on it
   * (docs/limits.md, "Accounts"). Undefined: no cap of its own (shell, command templates).
   */
  accountConcurrency?: number
  /**
   * Checks that can be made before anything launches (logged in, a permission
   * mode the installed version accepts): one problem per entry, each saying what
   * to run or set. `executable` is the resolved executable (overrides applied).
   */
  preflight?: (input: PreflightInput) => Promise<string[]>
  /**
   * Its login, checked on another host where its agents will run (src/hosts/remote-auth.ts asks it, in the
   * host's preflight round trip): the check's words for the host's preflight script and how to judge what the
   * host said. Undefined (or no method): nothing to check there, e.g. the host passes a key from here.
   */
  remoteAuth?: (input: RemoteAuthInput) => AuthCheck | undefined
  /**
   * The project files (paths from the repository's root) it reads its auth from, for a plan in folder `prefix`
   * (`a/b/` or empty): read once from HEAD before a remote host's preflight, and handed to `remoteAuth` as `project`.
   */
  projectAuthFiles?: (prefix: string) => string[]
  /** For runners that choose the Agent ID themselves (claude and gemini `--session-id`, shell): a new one. */
  newAgentId?: () => string
  run(request: RunRequest): Promise<RunResult>
}

/** What a runner's preflight is told: the executable to ask, and every option its agents will run with. */
export interface PreflightInput {
  executable: string
  env: NodeJS.ProcessEnv
  cwd: string
  /** The distinct permission modes the agents using this runner ask for (undefined: the runner's default). */
  permissionModes: ReadonlyArray<string | undefined>
}
