import type {Runner, RunnerOptions, RunRequest, RunResult} from '../runner.js'
import {executableOf} from '../executable-of.js'
import {codexPreflight} from './codex-preflight.js'
import {codexRemoteAuth} from './codex-remote-auth.js'
import {failureKind} from '../failure-kind.js'
import {isRateLimited} from '../is-rate-limited.js'
import {promptViaStdin} from '../prompt-via-stdin.js'
import {numericFields, parseJsonLine} from '../parse-json-line.js'
import {exitReason, processReason} from '../../process/process-reason.js'
import {spawnRequest} from '../spawn-request.js'

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
  const file = executableOf(codexRunner) ?? 'codex'
  const resumeId = request.resume?.sessionId
  if (resumeId !== undefined) await request.onAgentId?.(resumeId)
  const started = Date.now()
  let threadId = resumeId
  let reported: void | Promise<void> = undefined
  let finalText = ''
  let turn: 'completed' | 'failed' | undefined
  let failure: string | undefined
  let lastError: string | undefined
  let status: string | undefined
  let reconnect: string | undefined
  let usage: Record<string, number> | undefined
  const onLine = (line: string): void => {
    const event = parseJsonLine(line)
    if (!event) return
    switch (event.type) {
      case 'thread.started':
        if (typeof event.thread_id === 'string' && event.thread_id !== threadId) {
          threadId = event.thread_id
          reported = request.onAgentId?.(threadId)
        }
        break
      case 'item.completed': {
        const item = event.item as Record<string, unknown> | undefined
        if (item?.type === 'agent_message' && typeof item.text === 'string') {
          finalText = item.text
          if (request.onOutput) for (const text of item.text.split('\n')) request.onOutput(text)
        } else if (item?.type === 'command_execution') {
          status = `codex: ran \`${String(item.command)}\``
          request.onOutput?.(`$ ${String(item.command)}`)
        }
        break
      }
      case 'item.started': {
        const item = event.item as Record<string, unknown> | undefined
        if (item?.type === 'command_execution') status = `codex: running \`${String(item.command)}\``
        break
      }
      case 'turn.completed':
        turn = 'completed'
        usage = numericFields(event.usage)
        break
      case 'turn.failed': {
        turn = 'failed'
        const error = event.error as {message?: unknown} | undefined
        failure = typeof error?.message === 'string' ? error.message : 'turn failed'
        break
      }
      case 'error': {
        // `Reconnecting... 2/5` is codex retrying by itself; only a turn.failed ends the turn. It is
        // what the agent is doing, though, which a timeout's reason says.
        if (typeof event.message !== 'string') break
        const count = /^Reconnecting\.*\s*(\d+\/\d+)/i.exec(event.message)
        if (count) reconnect = count[1]
        if (/^Reconnecting/i.test(event.message)) status = codexReconnectStatus(event.message, reconnect)
        else lastError = event.message
        break
      }
    }
  }
  const args = codexArgs({cwd: request.cwd, options: request.options, prompt: request.prompt, resumeId})
  const input = promptViaStdin(request.prompt) ? request.prompt : undefined
  const result = await spawnRequest(request, {file, args, onLine, input})
  await reported
  const ok = result.exitCode === 0 && turn === 'completed' && !result.timedOut && !result.interrupted
  const failureText = [failure ?? '', lastError ?? '', result.stderr].join('\n')
  const rateLimited = !ok && isRateLimited(failureText)
  const unknownSession = !ok && resumeId !== undefined && /no rollout found|thread\/resume failed/i.test(result.stderr)
  const ended = result.timedOut || result.interrupted || result.spawnFailed
  const kind = ok || ended || rateLimited || unknownSession ? undefined : failureKind(failureText)
  return {
    ok,
    agentId: threadId,
    finalText,
    reason: ok ? undefined : withAuthHint(processReason(result, file, request.timeoutMs, status) ?? failure ?? lastError ?? exitReason(result, file), kind),
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    interrupted: result.interrupted,
    rateLimited,
    configError: kind === 'config',
    transient: kind === 'transient',
    unknownSession,
    spawnFailed: result.spawnFailed,
    durationMs: Date.now() - started,
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
