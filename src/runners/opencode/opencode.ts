import {randomBytes} from 'node:crypto'
import type {Runner, RunnerOptions, RunRequest, RunResult} from '../runner.js'
import {failureKind} from '../failure-kind.js'
import {isRateLimited} from '../is-rate-limited.js'
import {opencodeLimitReset} from './opencode-limit-reset.js'
import {localZone} from '../local-zone.js'
import {opencodePreflight} from './opencode-preflight.js'
import {opencodeRemoteAuth, opencodeProjectAuthFiles} from './opencode-remote-auth.js'
import {opencodeLogCause} from './opencode-log-cause.js'
import {probeOpencodeSession} from './opencode-session-probe.js'
import {promptViaStdin} from '../prompt-via-stdin.js'
import {parseJsonLine} from '../parse-json-line.js'
import type {SpawnResult} from '../../process/process-types.js'
import {spawnRequest} from '../spawn-request.js'
import {learningAttempt} from '../agent-id.js'
import {cliRunResult, exitedCleanly} from '../run-result.js'
import {cliAccountConcurrency} from '../cli-account-concurrency.js'

/**
 * `opencode run --format json --print-logs`. The session ID (`ses_…`) arrives
 * on every event, but the first can take a minute: a fresh run gets a unique
 * `--title` and `probeOpencodeSession` finds the session by it as soon as it
 * exists; whichever comes first is reported. `--print-logs` puts opencode's log
 * on stderr (into the attempt's log), where the real cause of an opaque
 * `UnknownError` is (`opencodeLogCause`). Cost is the sum of `step_finish.cost`.
 */
export const opencodeRunner: Runner = {
  name: 'opencode',
  executable: 'opencode',
  executableEnv: 'MDPLAN_OPENCODE_BIN',
  install: 'npm install -g opencode-ai',
  canResume: true,
  // One login's quota behind every session (docs/limits.md, "Accounts").
  accountConcurrency: cliAccountConcurrency,
  preflight: opencodePreflight,
  remoteAuth: opencodeRemoteAuth,
  projectAuthFiles: opencodeProjectAuthFiles,
  run: runOpencode
}

/** The argv after `opencode`. A prompt too large for argv is left out: with no message, `run` reads stdin. */
export function opencodeArgs(input: {options: RunnerOptions; prompt: string; resumeId?: string; title?: string}): string[] {
  const {options, prompt, resumeId, title} = input
  const args = ['run', '--format', 'json', '--print-logs']
  if (resumeId !== undefined) args.push('-s', resumeId)
  else if (title !== undefined) args.push('--title', title)
  if (options.model) args.push('-m', options.model)
  // `--auto` approves every permission that is not denied: only for the mode that asks for exactly that.
  if (options.permissionMode === 'bypassPermissions') args.push('--auto')
  if (promptViaStdin(prompt)) return args
  // yargs would read a message starting with `-` as flags.
  if (prompt.startsWith('-')) args.push('--')
  args.push(prompt)
  return args
}

async function runOpencode(request: RunRequest): Promise<RunResult> {
  const {file, resumeId, agentId: sessionId, started} = await learningAttempt(opencodeRunner, request)
  const probing = new AbortController()
  const stream = opencodeStream(request, (id) => {
    probing.abort()
    sessionId.learn(id)
  })
  const title = resumeId === undefined ? `mdplan ${request.agent.id} ${randomBytes(4).toString('hex')}` : undefined
  const probe =
    title === undefined
      ? undefined
      : probeOpencodeSession({file, title, cwd: request.cwd, env: {...process.env, ...request.options.env, PWD: request.cwd}, signal: probing.signal}).then((id) => {
          if (id !== undefined && !probing.signal.aborted) sessionId.learn(id)
        })
  const args = opencodeArgs({options: request.options, prompt: request.prompt, resumeId, title})
  const input = promptViaStdin(request.prompt) ? request.prompt : undefined
  // opencode takes its project folder from PWD, not from the process's working directory: mdplan's own
  // PWD (another folder with --cwd, the main checkout with isolation: worktree) made it work there, and
  // treat the agent's real folder as an external directory whose writes it auto-rejects.
  const result = await spawnRequest(request, {file, args, onLine: stream.onLine, input, env: {PWD: request.cwd}})
  probing.abort()
  await probe
  await sessionId.settled()
  return opencodeResult(request, result, stream.state, {file, agentId: sessionId.current, started})
}

interface StreamState {
  status?: string
  stepTexts: string[]
  lastTexts: string[]
  costUsd?: number
  steps: number
  usage: Record<string, number>
  error?: {name?: string; message?: string; status?: number; ref?: string; retryAfter?: string; retryAfterMs?: string}
  /** A tool call opencode refused (run mode rejects what it would ask about): like claude's permission_denials. */
  denied?: string
}

/** Follows opencode's JSON events: the session ID (on every event), the last step's text, tools, cost and tokens, the error. */
function opencodeStream({onOutput, onSpend}: Pick<RunRequest, 'onOutput' | 'onSpend'>, onSession: (id: string) => void) {
  const state: StreamState = {stepTexts: [], lastTexts: [], steps: 0, usage: {}}
  const onLine = (line: string): void => {
    const event = parseJsonLine(line)
    if (!event) return
    if (typeof event.sessionID === 'string') onSession(event.sessionID)
    const part = (event.part ?? {}) as Record<string, unknown>
    switch (event.type) {
      case 'step_start':
        state.stepTexts = []
        break
      case 'text':
        if (typeof part.text === 'string') {
          state.stepTexts.push(part.text)
          state.lastTexts = state.stepTexts
          if (onOutput) for (const text of part.text.split('\n')) onOutput(text)
        }
        break
      case 'tool_use':
        state.status = `opencode: running ${String(part.tool)}`
        onOutput?.(`→ ${String(part.tool)}`)
        state.denied ??= rejectedTool(part)
        break
      case 'step_finish':
        addStep(state, part)
        // Each step's tokens and cost as it ends: a budget can stop the agent between steps.
        onSpend?.({usage: {...state.usage}, ...(state.costUsd !== undefined ? {costUsd: state.costUsd} : {})})
        break
      case 'error':
        state.error = errorOf(event.error)
        break
    }
  }
  return {state, onLine}
}

/** One line for a tool call opencode rejected for want of a permission (its part's state says so), else undefined. */
function rejectedTool(part: Record<string, unknown>): string | undefined {
  const state = (part.state ?? {}) as {status?: unknown; error?: unknown; input?: Record<string, unknown>}
  if (state.status !== 'error' || !/rejected permission/i.test(String(state.error))) return undefined
  const what = [state.input?.command, state.input?.filePath].find((value): value is string => typeof value === 'string')
  return `opencode rejected ${String(part.tool)}${what ? ` \`${what.replace(/\s+/g, ' ').slice(0, 80)}\`` : ''}`
}

/** A `step_finish`: one more step, its cost and its tokens added to the run's. */
function addStep(state: StreamState, part: Record<string, unknown>): void {
  state.steps++
  if (typeof part.cost === 'number') state.costUsd = (state.costUsd ?? 0) + part.cost
  const tokens = (part.tokens ?? {}) as Record<string, unknown>
  const cache = (tokens.cache ?? {}) as Record<string, unknown>
  const add = (key: string, value: unknown): void => {
    if (typeof value === 'number') state.usage[key] = (state.usage[key] ?? 0) + value
  }
  add('input', tokens.input)
  add('output', tokens.output)
  add('reasoning', tokens.reasoning)
  add('cache.read', cache.read)
  add('cache.write', cache.write)
}

/** An `error` event's error: its name, and its data's message, status code and ref. */
function errorOf(value: unknown): StreamState['error'] {
  const raw = (value ?? {}) as {name?: unknown; data?: {message?: unknown; statusCode?: unknown; ref?: unknown; responseHeaders?: unknown}}
  const headers = (raw.data?.responseHeaders ?? {}) as Record<string, unknown>
  const header = (name: string): string | undefined => (typeof headers[name] === 'string' ? headers[name] : undefined)
  return {
    retryAfter: header('retry-after'),
    retryAfterMs: header('retry-after-ms'),
    name: typeof raw.name === 'string' ? raw.name : undefined,
    message: typeof raw.data?.message === 'string' ? raw.data.message : undefined,
    status: typeof raw.data?.statusCode === 'number' ? raw.data.statusCode : undefined,
    ref: typeof raw.data?.ref === 'string' ? raw.data.ref : undefined
  }
}

function opencodeResult(request: RunRequest, result: SpawnResult, state: StreamState, run: {file: string; agentId?: string; started: number}): RunResult {
  const {error, denied, steps} = state
  // A refused tool fails a run that says nothing else (exit 0 would call it done); a RESULT line still decides.
  const ok = exitedCleanly(result) && error === undefined && denied === undefined
  const permission = /permission requested: (.*?); auto-rejecting/.exec(result.stderr.replace(/\x1b\[[0-9;]*m/g, ''))?.[1]
  const cause = error || !ok ? opencodeLogCause(result.stderr, error?.ref) : undefined
  const shown = error ? [error.name, error.message].filter(Boolean).join(': ') : undefined
  // The log's cause first: the event itself may only say `UnknownError: Unexpected server error`.
  const errorText = cause && cause !== shown ? (shown ? `${cause} (${shown})` : cause) : shown
  const serverError = error?.status !== undefined && error.status >= 500
  // The provider refused the key (`APIError` with `statusCode: 401`, whose message need not say so): a retry cannot help.
  const refusedKey = error?.status === 401 || error?.status === 403
  const rateLimited = !ok && (error?.status === 429 || isRateLimited(errorText ?? ''))
  return {
    ...cliRunResult(result, {
      ok,
      agentId: run.agentId,
      finalText: state.lastTexts.join(''),
      file: run.file,
      timeoutMs: request.timeoutMs,
      status: state.status,
      said:
        (refusedKey ? `${errorText ?? 'API error'} (status ${error?.status}): check the provider's API key (opencode.json's provider options.apiKey, or \`opencode auth login\`)` : undefined) ??
        errorText ??
        (denied && `${denied}${permission ? ` (permission ${permission})` : ''}: allow it in opencode.json's permission, or choose permission_mode bypassPermissions`),
      rateLimited,
      unknownSession: !ok && request.resume !== undefined && /Session not found/i.test(result.stderr),
      kind: () => (refusedKey ? 'config' : serverError ? 'transient' : failureKind(`${errorText ?? ''}\n${lastStderrLines(result.stderr)}`)),
      durationMs: Date.now() - run.started
    }),
    ...(rateLimited ? {resetAt: opencodeLimitReset({...error, message: errorText}, Date.now(), localZone())} : {}),
    costUsd: state.costUsd,
    turns: steps > 0 ? steps : undefined,
    usage: steps > 0 ? state.usage : undefined
  }
}

/** stderr without opencode's own log lines (`--print-logs`), whose routine errors would mislead. */
function lastStderrLines(stderr: string): string {
  return stderr
    .split(/\r?\n/)
    .filter((line) => !/^timestamp=\S+ level=/.test(line))
    .join('\n')
}
