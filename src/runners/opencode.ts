import type {Runner, RunnerOptions, RunRequest, RunResult} from './runner.js'
import {executableOf} from './executable-of.js'
import {isRateLimited} from './is-rate-limited.js'
import {parseJsonLine} from './parse-json-line.js'
import {exitReason, processReason} from './process-reason.js'
import {spawnRequest} from './spawn-request.js'

/**
 * `opencode run --format json`. The session ID (`ses_…`) arrives on every
 * event and is reported with the first. Cost is the sum of `step_finish.cost`.
 */
export const opencodeRunner: Runner = {
  name: 'opencode',
  executable: 'opencode',
  executableEnv: 'MDPLAN_OPENCODE_BIN',
  install: 'npm install -g opencode-ai',
  canResume: true,
  run: runOpencode
}

export function opencodeArgs(input: {options: RunnerOptions; prompt: string; resumeId?: string}): string[] {
  const {options, prompt, resumeId} = input
  const args = ['run', '--format', 'json']
  if (resumeId !== undefined) args.push('-s', resumeId)
  if (options.model) args.push('-m', options.model)
  // `--auto` approves every permission that is not denied: only for the mode that asks for exactly that.
  if (options.permissionMode === 'bypassPermissions') args.push('--auto')
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
  let stepTexts: string[] = []
  let lastTexts: string[] = []
  let costUsd: number | undefined
  let steps = 0
  const usage: Record<string, number> = {}
  let error: {name?: string; message?: string; status?: number} | undefined
  const add = (key: string, value: unknown): void => {
    if (typeof value === 'number') usage[key] = (usage[key] ?? 0) + value
  }
  const onLine = (line: string): void => {
    const event = parseJsonLine(line)
    if (!event) return
    if (typeof event.sessionID === 'string' && event.sessionID !== sessionId) {
      sessionId = event.sessionID
      reported = request.onAgentId?.(sessionId)
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
      case 'tool_use':
        request.onOutput?.(`→ ${String(part.tool)}`)
        break
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
        const raw = (event.error ?? {}) as {name?: unknown; data?: {message?: unknown; statusCode?: unknown}}
        error = {
          name: typeof raw.name === 'string' ? raw.name : undefined,
          message: typeof raw.data?.message === 'string' ? raw.data.message : undefined,
          status: typeof raw.data?.statusCode === 'number' ? raw.data.statusCode : undefined
        }
        break
      }
    }
  }
  const result = await spawnRequest(request, {file, args: opencodeArgs({options: request.options, prompt: request.prompt, resumeId}), onLine})
  await reported
  const ok = result.exitCode === 0 && error === undefined && !result.timedOut && !result.interrupted
  const errorText = error ? [error.name, error.message].filter(Boolean).join(': ') : undefined
  return {
    ok,
    agentId: sessionId,
    finalText: lastTexts.join(''),
    reason: ok ? undefined : (processReason(result, file, request.timeoutMs) ?? errorText ?? exitReason(result, file)),
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    interrupted: result.interrupted,
    rateLimited: !ok && (error?.status === 429 || isRateLimited(`${errorText ?? ''}\n${result.stderr}`)),
    unknownSession: !ok && resumeId !== undefined && /Session not found/i.test(result.stderr),
    spawnFailed: result.spawnFailed,
    costUsd,
    turns: steps > 0 ? steps : undefined,
    durationMs: Date.now() - started,
    usage: steps > 0 ? usage : undefined
  }
}
