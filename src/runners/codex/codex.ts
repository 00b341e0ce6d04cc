import type {Runner, RunnerOptions, RunRequest, RunResult} from '../runner.js'
import {codexPreflight} from './codex-preflight.js'
import {codexRemoteAuth} from './codex-remote-auth.js'
import {failureKind} from '../failure-kind.js'
import {isRateLimited} from '../is-rate-limited.js'
import {codexLimitReset} from './codex-limit-reset.js'
import {localZone} from '../local-zone.js'
import {promptViaStdin} from '../prompt-via-stdin.js'
import {numericFields, parseJsonLine} from '../parse-json-line.js'
import type {SpawnResult} from '../../process/process-types.js'
import {spawnRequest} from '../spawn-request.js'
import {learningAttempt} from '../agent-id.js'
import {cliRunResult, exitedCleanly} from '../run-result.js'
import {cliAccountConcurrency} from '../cli-account-concurrency.js'

/**
 * `codex exec --json`. The thread ID cannot be chosen: it arrives in the first
 * event (`thread.started`, before any network call) and is reported then.
 * `usage` is the thread's running total (`cumulativeUsage`): diff it with
 * `usageDelta` against the previous run of the same thread.
 */
export const codexRunner: Runner = {
  name: 'codex',
  executable: 'codex',
  executableEnv: 'MDPLAN_CODEX_BIN',
  install: 'npm install -g @openai/codex',
  canResume: true,
  // One login's quota behind every session (docs/limits.md, "Accounts").
  accountConcurrency: cliAccountConcurrency,
  preflight: codexPreflight,
  remoteAuth: codexRemoteAuth,
  run: runCodex
}

/** `exec` defaults to a read-only sandbox and the sandbox is not inherited on resume: always say it. */
export function codexSandbox(permissionMode: string | undefined): string {
  if (permissionMode === 'plan') return 'read-only'
  if (permissionMode === 'bypassPermissions') return 'danger-full-access'
  return 'workspace-write'
}

/**
 * The argv after `codex`. `--sandbox` and `-C` must precede `resume`, or codex
 * rejects them. A prompt too large for argv is `-`: codex reads it from stdin.
 */
export function codexArgs(input: {cwd: string; options: RunnerOptions; prompt: string; resumeId?: string}): string[] {
  const {cwd, options, prompt, resumeId} = input
  const args = ['exec', '--json', '--skip-git-repo-check', '--sandbox', codexSandbox(options.permissionMode), '-C', cwd]
  if (options.model) args.push('-m', options.model)
  if (resumeId !== undefined) args.push('resume', resumeId)
  if (promptViaStdin(prompt)) args.push('-')
  else args.push('--', prompt)
  return args
}

async function runCodex(request: RunRequest): Promise<RunResult> {
  const {file, resumeId, agentId: threadId, started} = await learningAttempt(codexRunner, request)
  const stream = codexStream(request.onOutput, (id) => threadId.learn(id))
  const args = codexArgs({cwd: request.cwd, options: request.options, prompt: request.prompt, resumeId})
  const input = promptViaStdin(request.prompt) ? request.prompt : undefined
  const result = await spawnRequest(request, {file, args, onLine: stream.onLine, input})
  await threadId.settled()
  return codexResult(request, result, stream.state, {file, agentId: threadId.current, started})
}

interface StreamState {
  finalText: string
  turn?: 'completed' | 'failed'
  failure?: string
  lastError?: string
  status?: string
  reconnect?: string
  usage?: Record<string, number>
}

/** Follows codex's JSON events: the thread ID, the last agent message, the commands it runs, the turn's end and usage, its errors. */
function codexStream(onOutput: ((line: string) => void) | undefined, onThread: (id: string) => void) {
  const state: StreamState = {finalText: ''}
  const onLine = (line: string): void => {
    const event = parseJsonLine(line)
    if (!event) return
    switch (event.type) {
      case 'thread.started':
        if (typeof event.thread_id === 'string') onThread(event.thread_id)
        break
      case 'item.completed':
        itemCompleted(state, event.item as Record<string, unknown> | undefined, onOutput)
        break
      case 'item.started': {
        const item = event.item as Record<string, unknown> | undefined
        if (item?.type === 'command_execution') state.status = `codex: running \`${String(item.command)}\``
        break
      }
      case 'turn.completed':
        state.turn = 'completed'
        state.usage = numericFields(event.usage)
        break
      case 'turn.failed': {
        state.turn = 'failed'
        const error = event.error as {message?: unknown} | undefined
        state.failure = typeof error?.message === 'string' ? error.message : 'turn failed'
        break
      }
      case 'error':
        if (typeof event.message === 'string') errorEvent(state, event.message)
        break
    }
  }
  return {state, onLine}
}

/** An `item.completed`: an agent message (the final text so far), or a command it ran. */
function itemCompleted(state: StreamState, item: Record<string, unknown> | undefined, onOutput: ((line: string) => void) | undefined): void {
  if (item?.type === 'agent_message' && typeof item.text === 'string') {
    state.finalText = item.text
    if (onOutput) for (const text of item.text.split('\n')) onOutput(text)
  } else if (item?.type === 'command_execution') {
    state.status = `codex: ran \`${String(item.command)}\``
    onOutput?.(`$ ${String(item.command)}`)
  }
}

/**
 * An `error` event. `Reconnecting... 2/5` is codex retrying by itself; only a turn.failed ends the turn. It is
 * what the agent is doing, though, which a timeout's reason says.
 */
function errorEvent(state: StreamState, message: string): void {
  const count = /^Reconnecting\.*\s*(\d+\/\d+)/i.exec(message)
  if (count) state.reconnect = count[1]
  if (/^Reconnecting/i.test(message)) state.status = codexReconnectStatus(message, state.reconnect)
  else state.lastError = message
}

function codexResult(request: RunRequest, result: SpawnResult, state: StreamState, run: {file: string; agentId?: string; started: number}): RunResult {
  const {failure, lastError, usage} = state
  const ok = exitedCleanly(result) && state.turn === 'completed'
  const failureText = [failure ?? '', lastError ?? '', result.stderr].join('\n')
  const rateLimited = !ok && isRateLimited(failureText)
  return {
    ...cliRunResult(result, {
      ok,
      agentId: run.agentId,
      finalText: state.finalText,
      file: run.file,
      timeoutMs: request.timeoutMs,
      status: state.status,
      said: failure ?? lastError,
      rateLimited,
      unknownSession: !ok && request.resume !== undefined && /no rollout found|thread\/resume failed/i.test(result.stderr),
      kind: () => failureKind(failureText),
      hint: withAuthHint,
      durationMs: Date.now() - run.started
    }),
    ...(rateLimited ? {resetAt: codexLimitReset(failureText, Date.now(), localZone())} : {}),
    usage,
    cumulativeUsage: usage !== undefined
  }
}

/** codex says only `unexpected status 401 Unauthorized: …`: say what to check. */
export function withAuthHint(reason: string, kind: string | undefined): string {
  if (kind !== 'config' || !/\b401\b|unauthori[sz]ed/i.test(reason)) return reason
  return `${reason}; check the API key (CODEX_API_KEY, \`codex login\`, or the model provider's env_key)`
}

/**
 * `codex: waiting for network (Reconnecting 5/5)` for codex's endless wait after
 * its retries, else `codex: Reconnecting 3/5 (<cause>)`.
 */
export function codexReconnectStatus(message: string, count: string | undefined): string {
  if (/waiting for network/i.test(message)) return `codex: waiting for network${count ? ` (Reconnecting ${count})` : ''}`
  const cause = /\((.*)\)\s*$/.exec(message)?.[1]
  return `codex: Reconnecting${count ? ` ${count}` : ''}${cause ? ` (${cause})` : ''}`
}
