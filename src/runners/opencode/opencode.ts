import {randomBytes} from 'node:crypto'
import type {Runner, RunnerOptions, RunRequest, RunResult} from '../runner.js'
import {executableOf} from '../executable-of.js'
import {failureKind} from '../failure-kind.js'
import {isRateLimited} from '../is-rate-limited.js'
import {opencodePreflight} from './opencode-preflight.js'
import {opencodeRemoteAuth, opencodeProjectAuthFiles} from './opencode-remote-auth.js'
import {opencodeLogCause} from './opencode-log-cause.js'
import {probeOpencodeSession} from './opencode-session-probe.js'
import {promptViaStdin} from '../prompt-via-stdin.js'
import {parseJsonLine} from '../parse-json-line.js'
import {exitReason, processReason} from '../../process/process-reason.js'
import {spawnRequest} from '../spawn-request.js'

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
  const file = executableOf(opencodeRunner) ?? 'opencode'
  const resumeId = request.resume?.sessionId
  if (resumeId !== undefined) await request.onAgentId?.(resumeId)
  const started = Date.now()
  let sessionId = resumeId
  let reported: void | Promise<void> = undefined
  let status: string | undefined
  const found = (id: string): void => {
    if (id === sessionId) return
    sessionId = id
    reported = request.onAgentId?.(id)
  }
  let stepTexts: string[] = []
  let lastTexts: string[] = []
  let costUsd: number | undefined
  let steps = 0
  const usage: Record<string, number> = {}
  let error: {name?: string; message?: string; status?: number; ref?: string} | undefined
  // A tool call opencode refused (run mode rejects what it would ask about): like claude's permission_denials.
  let denied: string | undefined
  const add = (key: string, value: unknown): void => {
    if (typeof value === 'number') usage[key] = (usage[key] ?? 0) + value
  }
  const onLine = (line: string): void => {
    const event = parseJsonLine(line)
    if (!event) return
    if (typeof event.sessionID === 'string') {
      probing.abort()
      found(event.sessionID)
    }
    const part = (event.part ?? {}) as Record<string, unknown>
    switch (event.type) {
      case 'step_start':
        stepTexts = []
        break
      case 'text':
        if (typeof part.text === 'string') {
          stepTexts.push(part.text)
          lastTexts = stepTexts
          if (request.onOutput) for (const text of part.text.split('\n')) request.onOutput(text)
        }
        break
      case 'tool_use': {
        status = `opencode: running ${String(part.tool)}`
        request.onOutput?.(`→ ${String(part.tool)}`)
        const state = (part.state ?? {}) as {status?: unknown; error?: unknown; input?: Record<string, unknown>}
        if (denied === undefined && state.status === 'error' && /rejected permission/i.test(String(state.error))) {
          const what = [state.input?.command, state.input?.filePath].find((value) => typeof value === 'string') as string | undefined
          denied = `opencode rejected ${String(part.tool)}${what ? ` \`${what.replace(/\s+/g, ' ').slice(0, 80)}\`` : ''}`
        }
        break
      }
      case 'step_finish': {
        steps++
        if (typeof part.cost === 'number') costUsd = (costUsd ?? 0) + part.cost
        const tokens = (part.tokens ?? {}) as Record<string, unknown>
        const cache = (tokens.cache ?? {}) as Record<string, unknown>
        add('input', tokens.input)
        add('output', tokens.output)
        add('reasoning', tokens.reasoning)
        add('cache.read', cache.read)
        add('cache.write', cache.write)
        break
      }
      case 'error': {
        const raw = (event.error ?? {}) as {name?: unknown; data?: {message?: unknown; statusCode?: unknown; ref?: unknown}}
        error = {
          name: typeof raw.name === 'string' ? raw.name : undefined,
          message: typeof raw.data?.message === 'string' ? raw.data.message : undefined,
          status: typeof raw.data?.statusCode === 'number' ? raw.data.statusCode : undefined,
          ref: typeof raw.data?.ref === 'string' ? raw.data.ref : undefined
        }
        break
      }
    }
  }
  const title = resumeId === undefined ? `mdplan ${request.agent.id} ${randomBytes(4).toString('hex')}` : undefined
  const probing = new AbortController()
  const probe =
    title === undefined
      ? undefined
      : probeOpencodeSession({file, title, cwd: request.cwd, env: {...process.env, ...request.options.env, PWD: request.cwd}, signal: probing.signal}).then((id) => {
          if (id !== undefined && !probing.signal.aborted) found(id)
        })
  const args = opencodeArgs({options: request.options, prompt: request.prompt, resumeId, title})
  const input = promptViaStdin(request.prompt) ? request.prompt : undefined
  // opencode takes its project folder from PWD, not from the process's working directory: mdplan's own
  // PWD (another folder with --cwd, the main checkout with isolation: worktree) made it work there, and
  // treat the agent's real folder as an external directory whose writes it auto-rejects.
  const result = await spawnRequest(request, {file, args, onLine, input, env: {PWD: request.cwd}})
  probing.abort()
  await probe
  await reported
  // A refused tool fails a run that says nothing else (exit 0 would call it done); a RESULT line still decides.
  const ok = result.exitCode === 0 && error === undefined && denied === undefined && !result.timedOut && !result.interrupted
  const permission = /permission requested: (.*?); auto-rejecting/.exec(result.stderr.replace(/\x1b\[[0-9;]*m/g, ''))?.[1]
  const cause = error || !ok ? opencodeLogCause(result.stderr, error?.ref) : undefined
  const shown = error ? [error.name, error.message].filter(Boolean).join(': ') : undefined
  // The log's cause first: the event itself may only say `UnknownError: Unexpected server error`.
  const errorText = cause && cause !== shown ? (shown ? `${cause} (${shown})` : cause) : shown
  const rateLimited = !ok && (error?.status === 429 || isRateLimited(errorText ?? ''))
  const unknownSession = !ok && resumeId !== undefined && /Session not found/i.test(result.stderr)
  const ended = result.timedOut || result.interrupted || result.spawnFailed
  const serverError = error?.status !== undefined && error.status >= 500
  // The provider refused the key (`APIError` with `statusCode: 401`, whose message need not say so): a retry cannot help.
  const refusedKey = error?.status === 401 || error?.status === 403
  const kind =
    ok || ended || rateLimited || unknownSession
      ? undefined
      : refusedKey
        ? 'config'
        : serverError
          ? 'transient'
          : failureKind(`${errorText ?? ''}\n${lastStderrLines(result.stderr)}`)
  return {
    ok,
    agentId: sessionId,
    finalText: lastTexts.join(''),
    reason: ok
      ? undefined
      : (processReason(result, file, request.timeoutMs, status) ??
        (refusedKey ? `${errorText ?? 'API error'} (status ${error?.status}): check the provider's API key (opencode.json's provider options.apiKey, or \`opencode auth login\`)` : undefined) ??
        errorText ??
        (denied && `${denied}${permission ? ` (permission ${permission})` : ''}: allow it in opencode.json's permission, or choose permission_mode bypassPermissions`) ??
        exitReason(result, file)),
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    interrupted: result.interrupted,
    rateLimited,
    configError: kind === 'config',
    transient: kind === 'transient',
    unknownSession,
    spawnFailed: result.spawnFailed,
    costUsd,
    turns: steps > 0 ? steps : undefined,
    durationMs: Date.now() - started,
    usage: steps > 0 ? usage : undefined
  }
}

/** stderr without opencode's own log lines (`--print-logs`), whose routine errors would mislead. */
function lastStderrLines(stderr: string): string {
  return stderr
    .split(/\r?\n/)
    .filter((line) => !/^timestamp=\S+ level=/.test(line))
    .join('\n')
}
