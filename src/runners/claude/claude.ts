import {randomUUID} from 'node:crypto'
import type {Runner, RunnerOptions, RunRequest, RunResult} from '../runner.js'
import {executableOf} from '../executable-of.js'
import {claudePermissionDenials} from './claude-permission-denials.js'
import {claudePreflight} from './claude-preflight.js'
import {claudeRemoteAuth} from './claude-remote-auth.js'
import {failureKind} from '../failure-kind.js'
import {isRateLimited} from '../is-rate-limited.js'
import {claudeLimitReset} from './claude-limit-reset.js'
import {claudeRejectedUntil} from './claude-rejected-until.js'
import {localZone} from '../local-zone.js'
import {promptViaStdin} from '../prompt-via-stdin.js'
import {numericFields, parseJsonLine} from '../parse-json-line.js'
import {lastLine} from '../../process/process-reason.js'
import type {SpawnResult} from '../../process/process-types.js'
import {spawnRequest} from '../spawn-request.js'
import {drawnAgentId} from '../agent-id.js'
import {cliRunResult, exitedCleanly} from '../run-result.js'
import {eitherSignal} from '../../process/either-signal.js'
import {cliAccountConcurrency} from '../cli-account-concurrency.js'

/**
 * Claude Code in print mode with stream-json. mdplan draws the session UUID and
 * passes `--session-id`, so the Agent ID is in the table before the process
 * starts. A `Session ID … is already in use` refusal (a UUID collision, or a
 * table ID reused by hand) gets one relaunch with a fresh UUID, reported again
 * through `onAgentId`.
 */
export const claudeRunner: Runner = {
  name: 'claude',
  executable: 'claude',
  executableEnv: 'MDPLAN_CLAUDE_BIN',
  install: 'npm install -g @anthropic-ai/claude-code',
  canResume: true,
  // One login's quota behind every session (docs/limits.md, "Accounts").
  accountConcurrency: cliAccountConcurrency,
  newAgentId: randomUUID,
  preflight: claudePreflight,
  remoteAuth: claudeRemoteAuth,
  run: runClaude
}

export const defaultPermissionMode = 'acceptEdits'

/**
 * The argv after `claude`. `--` always precedes the prompt: `--allowedTools` is
 * variadic and would swallow it. A prompt too large for argv is left out: `-p`
 * with no prompt argument reads it from stdin.
 */
export function claudeArgs(input: {sessionId: string; resume: boolean; options: RunnerOptions; prompt: string}): string[] {
  const {sessionId, resume, options, prompt} = input
  const args = ['-p', '--output-format', 'stream-json', '--verbose', resume ? '-r' : '--session-id', sessionId]
  args.push('--permission-mode', options.permissionMode ?? defaultPermissionMode)
  if (options.model) args.push('--model', options.model)
  if (options.maxTurns !== undefined) args.push('--max-turns', String(options.maxTurns))
  if (options.maxBudgetUsd !== undefined) args.push('--max-budget-usd', String(options.maxBudgetUsd))
  if (options.allowedTools && options.allowedTools.length > 0) args.push('--allowedTools', ...options.allowedTools)
  if (!promptViaStdin(prompt)) args.push('--', prompt)
  return args
}

type Event = Record<string, unknown>

type StreamState = {result?: Event; version?: string; sessionId?: string; status?: string; authFailure?: Event; rejectedUntil?: number}

/**
 * Claude retrying a request the API refused for its credentials (2.1.330: `error_status: 401`,
 * `error: "authentication_failed"`). It would retry ten times over several minutes with the same
 * key, so the first such line ends the attempt.
 */
export function isAuthRetry(event: Event): boolean {
  return event.type === 'system' && event.subtype === 'api_retry' && (event.error_status === 401 || event.error === 'authentication_failed')
}

/** Follows the stream: the last `result` wins (a background subagent can add a second init/result pair). */
function claudeStream(onOutput?: (line: string) => void, onAuthFailure?: () => void) {
  const state: StreamState = {}
  const onLine = (line: string): void => {
    const event = parseJsonLine(line)
    if (!event) {
      if (line.trim() !== '') onOutput?.(line)
      return
    }
    if (event.type === 'result') state.result = event
    // The latest word counts: an `allowed` after a refusal (the window reset, or extra usage) clears it.
    else if (event.type === 'rate_limit_event') state.rejectedUntil = claudeRejectedUntil(event)
    else if (isAuthRetry(event)) {
      state.status = apiRetryStatus(event)
      if (!state.authFailure) {
        state.authFailure = event
        onAuthFailure?.()
      }
    } else if (event.type === 'system' && event.subtype === 'api_retry') state.status = apiRetryStatus(event)
    else if (event.type === 'system' && event.subtype === 'init') {
      if (typeof event.claude_code_version === 'string') state.version = event.claude_code_version
      if (typeof event.session_id === 'string') state.sessionId = event.session_id
    } else if (event.type === 'assistant') {
      const message = event.message as {content?: Array<Record<string, unknown>>} | undefined
      state.status = 'claude: working'
      for (const block of message?.content ?? []) {
        if (block.type === 'text' && typeof block.text === 'string') for (const text of block.text.split('\n')) onOutput?.(text)
        else if (block.type === 'tool_use') {
          state.status = `claude: running ${String(block.name)}`
          onOutput?.(`→ ${String(block.name)}`)
        }
      }
    }
  }
  return {state, onLine}
}

async function runClaude(request: RunRequest): Promise<RunResult> {
  const file = executableOf(claudeRunner) ?? 'claude'
  const resume = request.resume !== undefined
  let sessionId = await drawnAgentId(request, claudeRunner)
  let relaunched = false
  for (;;) {
    const started = Date.now()
    // Ends the process tree at the first authentication retry; the person's own abort (Ctrl-C) still counts as theirs.
    const refused = new AbortController()
    const stream = claudeStream(request.onOutput, () => refused.abort())
    const args = claudeArgs({sessionId, resume, options: request.options, prompt: request.prompt})
    const input = promptViaStdin(request.prompt) ? request.prompt : undefined
    const signal = eitherSignal(request.signal, refused.signal)
    const result = await spawnRequest({...request, signal}, {file, args, onLine: stream.onLine, input})
    if (stream.state.authFailure && !request.signal?.aborted) return authFailureResult(result, stream.state, sessionId, started)
    if (!resume && !relaunched && result.exitCode === 1 && /Session ID .* is already in use/.test(result.stderr)) {
      relaunched = true
      sessionId = randomUUID()
      await request.onAgentId?.(sessionId)
      continue
    }
    return claudeResult(request, result, stream.state, sessionId, Date.now() - started, file)
  }
}

function claudeResult(
  request: RunRequest,
  spawn: SpawnResult,
  state: StreamState,
  sessionId: string,
  wallMs: number,
  file: string
): RunResult {
  const last = state.result
  const finalText = typeof last?.result === 'string' ? last.result : ''
  // A tool the permission mode refused fails a run that says nothing else: without a RESULT line the
  // exit code would call it a success, and the note says what was refused. A RESULT line still decides.
  const denied = claudePermissionDenials(last, request.options.permissionMode ?? defaultPermissionMode)
  const ok = exitedCleanly(spawn) && last?.is_error === false && denied === undefined
  const errors = Array.isArray(last?.errors) ? last.errors.map(String) : []
  const subtype = typeof last?.subtype === 'string' ? last.subtype : undefined
  const failureText = [last?.is_error === true ? finalText : '', ...errors, spawn.stderr].join('\n')
  const limitedByRun = subtype === 'error_max_turns' || subtype === 'error_max_budget_usd'
  const status = last?.api_error_status
  const number = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined)
  const rateLimited = !ok && !limitedByRun && (status === 429 || status === 529 || isRateLimited(failureText))
  return {
    ...cliRunResult(spawn, {
      ok,
      agentId: sessionId,
      finalText,
      file,
      timeoutMs: request.timeoutMs,
      status: state.status,
      said: resultReason(last, subtype, errors, finalText) ?? denied,
      rateLimited,
      unknownSession: !ok && request.resume !== undefined && /No conversation found with session ID/.test(spawn.stderr + spawn.stdout),
      kind: () => (limitedByRun ? undefined : failureKind(failureText)),
      durationMs: number(last?.duration_ms) ?? wallMs
    }),
    // The stream's refusal says the reset to the second; the text only to the minute, in a zone to guess.
    ...(rateLimited ? {resetAt: state.rejectedUntil ?? claudeLimitReset(failureText, Date.now(), localZone())} : {}),
    costUsd: number(last?.total_cost_usd),
    turns: number(last?.num_turns),
    usage: last?.usage === undefined ? undefined : numericFields(last.usage),
    // 2.1.330 reports the session's running total after a resume; 2.1.197 reported the run's own cost.
    cumulativeCost: request.resume !== undefined && state.version !== undefined && versionAtLeast(state.version, [2, 1, 330]),
    cliVersion: state.version
  }
}

/** The API refused claude's credentials: a configuration error, ended at claude's first retry. */
function authFailureResult(spawn: SpawnResult, state: StreamState, sessionId: string, started: number): RunResult {
  const status = typeof state.authFailure?.error_status === 'number' ? ` ${state.authFailure.error_status}` : ''
  return {
    ok: false,
    agentId: sessionId,
    finalText: '',
    reason: `API authentication failed${status} (claude would retry it 10 times): check ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL), or run \`claude auth login\``,
    exitCode: spawn.exitCode,
    signal: spawn.signal,
    configError: true,
    durationMs: Date.now() - started,
    cliVersion: state.version
  }
}

/** `claude: API retry 3/10 (…)` from a `system/api_retry` event (claude retrying the API by itself). */
function apiRetryStatus(event: Event): string {
  const attempt = typeof event.attempt === 'number' ? event.attempt : undefined
  const max = typeof event.max_retries === 'number' ? event.max_retries : undefined
  // 2.1.330 with no network says `"error": "unknown"`, `"error_status": null`: nothing worth repeating.
  const error = typeof event.error_status === 'number' ? `status ${event.error_status}` : typeof event.error === 'string' && event.error !== 'unknown' ? event.error : undefined
  const count = attempt === undefined ? '' : max === undefined ? ` ${attempt}` : ` ${attempt}/${max}`
  return `claude: API retry${count}${error ? ` (${error})` : ''}`
}

function resultReason(last: Event | undefined, subtype: string | undefined, errors: string[], text: string): string | undefined {
  if (!last || last.is_error !== true) return undefined
  const detail = errors[0] ?? lastLine(text.split('\n')[0] ?? '')
  if (subtype === 'error_max_turns') return `max turns: ${detail || 'reached the turn limit'}`
  if (subtype === 'error_max_budget_usd') return `budget exhausted${detail ? `: ${detail}` : ''}`
  // `/login` is for the interactive app; say what works from a shell.
  if (/not logged in|invalid api key/i.test(detail)) return `${detail} (run \`claude auth login\` or set ANTHROPIC_API_KEY)`
  return detail || subtype || 'claude reported an error'
}

function versionAtLeast(version: string, minimum: readonly number[]): boolean {
  const parts = version.split('.').map((part) => Number.parseInt(part, 10))
  for (let index = 0; index < minimum.length; index++) {
    const part = parts[index] ?? 0
    if (Number.isNaN(part)) return false
    if (part !== minimum[index]) return part > minimum[index]!
  }
  return true
}
