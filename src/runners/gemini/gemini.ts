import {randomUUID} from 'node:crypto'
import type {Runner, RunnerOptions, RunRequest, RunResult} from '../runner.js'
import {executableOf} from '../executable-of.js'
import {failureKind} from '../failure-kind.js'
import {geminiPreflight} from './gemini-preflight.js'
import {geminiRemoteAuth, geminiProjectAuthFiles} from './gemini-remote-auth.js'
import {isRateLimited} from '../is-rate-limited.js'
import {geminiLimitReset} from './gemini-limit-reset.js'
import {localZone} from '../local-zone.js'
import {promptViaStdin} from '../prompt-via-stdin.js'
import {parseJsonLine} from '../parse-json-line.js'
import {lastLine} from '../../process/process-reason.js'
import {spawnRequest} from '../spawn-request.js'
import {drawnAgentId} from '../agent-id.js'
import {cliRunResult, exitedCleanly} from '../run-result.js'
import {cliAccountConcurrency} from '../cli-account-concurrency.js'

/**
 * Gemini CLI headless with stream-json. mdplan chooses the session UUID
 * (`--session-id`), so the ID is known before spawning; `--skip-trust` because
 * an untrusted folder exits 55. Resume (`--resume <uuid>`) is scoped to the
 * folder, like claude's. No cost is reported.
 */
export const geminiRunner: Runner = {
  name: 'gemini',
  executable: 'gemini',
  executableEnv: 'MDPLAN_GEMINI_BIN',
  install: 'npm install -g @google/gemini-cli',
  canResume: true,
  // One login's quota behind every session (docs/limits.md, "Accounts").
  accountConcurrency: cliAccountConcurrency,
  newAgentId: randomUUID,
  preflight: geminiPreflight,
  remoteAuth: geminiRemoteAuth,
  projectAuthFiles: geminiProjectAuthFiles,
  run: runGemini
}

const exitMeanings: Record<number, string> = {41: 'not authenticated', 42: 'invalid input', 53: 'turn limit reached', 55: 'workspace not trusted'}
/** Exit codes that mean gemini refused its configuration: retrying cannot help. */
const configExits = new Set([41, 42, 55])

/** claude's permission modes, as gemini approval modes. */
export function geminiApprovalMode(permissionMode: string | undefined): string {
  switch (permissionMode ?? 'acceptEdits') {
    case 'acceptEdits':
      return 'auto_edit'
    case 'bypassPermissions':
    case 'yolo':
      return 'yolo'
    case 'plan':
      return 'plan'
    case 'auto_edit':
      return 'auto_edit'
    default:
      return 'default'
  }
}

export function geminiArgs(input: {sessionId: string; resume: boolean; options: RunnerOptions; prompt: string}): string[] {
  const {sessionId, resume, options, prompt} = input
  const args = ['-o', 'stream-json', '--skip-trust', resume ? '--resume' : '--session-id', sessionId]
  args.push('--approval-mode', geminiApprovalMode(options.permissionMode))
  if (options.model) args.push('-m', options.model)
  // Too large for argv: no -p at all, and gemini (stdin not a terminal) runs headless on stdin's text.
  if (promptViaStdin(prompt)) return args
  // yargs would read a prompt starting with `-` as flags; the `--prompt=` form keeps it a value.
  if (prompt.startsWith('-')) args.push(`--prompt=${prompt}`)
  else args.push('-p', prompt)
  return args
}

async function runGemini(request: RunRequest): Promise<RunResult> {
  const file = executableOf(geminiRunner) ?? 'gemini'
  const resume = request.resume !== undefined
  const sessionId = await drawnAgentId(request, geminiRunner)
  const started = Date.now()
  const texts: string[] = []
  let final: Record<string, unknown> | undefined
  let lastError: string | undefined
  let status: string | undefined
  const onLine = (line: string): void => {
    const event = parseJsonLine(line)
    if (!event) return
    if (event.type === 'message' && event.role === 'assistant' && typeof event.content === 'string') {
      texts.push(event.content)
    } else if (event.type === 'result') final = event
    else if (event.type === 'error' && typeof event.message === 'string') {
      lastError = event.message
      status = `gemini: ${event.message}`
    } else if (event.type === 'tool_use') {
      status = `gemini: running ${String(event.tool_name)}`
      request.onOutput?.(`→ ${String(event.tool_name)}`)
    }
  }
  const args = geminiArgs({sessionId, resume, options: request.options, prompt: request.prompt})
  const input = promptViaStdin(request.prompt) ? request.prompt : undefined
  const result = await spawnRequest(request, {file, args, onLine, input})
  const finalText = texts.join('')
  if (request.onOutput) for (const text of finalText.split('\n')) request.onOutput(text)
  const ok = exitedCleanly(result) && final?.status === 'success'
  const stderrError = errorOf(result.stderr)
  const resultError = (final?.error as {message?: unknown} | undefined)?.message
  const detail = (typeof resultError === 'string' ? resultError : undefined) ?? lastError ?? stderrError ?? lastLine(result.stderr)
  const stats = (final?.stats ?? {}) as Record<string, unknown>
  const usage: Record<string, number> = {}
  for (const [key, value] of Object.entries(stats)) if (typeof value === 'number') usage[key] = value
  const rateLimited = !ok && isRateLimited(`${detail}\n${result.stderr}`)
  return {
    ...cliRunResult(result, {
      ok,
      agentId: sessionId,
      finalText,
      file,
      timeoutMs: request.timeoutMs,
      status,
      said: geminiReason(result.exitCode, detail),
      rateLimited,
      unknownSession: !ok && resume && /No previous sessions found|Invalid session identifier|session .*not found/i.test(result.stderr),
      kind: () => (configExits.has(result.exitCode ?? 0) ? 'config' : failureKind(`${detail}\n${result.stderr}`)),
      durationMs: typeof stats.duration_ms === 'number' ? stats.duration_ms : Date.now() - started
    }),
    ...(rateLimited ? {resetAt: geminiLimitReset(`${detail}\n${result.stderr}`, Date.now(), localZone())} : {}),
    usage: final ? usage : undefined
  }
}

function geminiReason(exitCode: number | undefined, detail: string): string | undefined {
  if (exitCode === undefined) return undefined
  const meaning = exitMeanings[exitCode]
  if (meaning) return detail ? `${meaning} (exit ${exitCode}): ${detail}` : `${meaning} (exit ${exitCode})`
  return detail ? `exit ${exitCode}: ${detail}` : undefined
}

/** `-o json`/`stream-json` fatal errors go to stderr as `{session_id, error: {type, message, code}}`. */
function errorOf(stderr: string): string | undefined {
  for (const line of stderr.split('\n').reverse()) {
    const event = parseJsonLine(line)
    const error = event?.error as {message?: unknown} | undefined
    if (typeof error?.message === 'string') return error.message
  }
  return undefined
}
