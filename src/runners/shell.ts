import {randomBytes} from 'node:crypto'
import type {Runner, RunRequest, RunResult} from './runner.js'
import {exitReason} from './process-reason.js'
import {spawnAgent} from './spawn-agent.js'

/**
 * The prompt IS the script: `sh -c <prompt>` in the agent's folder. The only
 * runner where a prompt passes through a shell, on purpose.
 *
 * Agent ID: `sh-<8 hex>`, drawn before spawning (like claude's `--session-id`)
 * so the table has it before the script can finish. A shell has no session,
 * so the ID only labels the attempt; the script sees it as `MDPLAN_AGENT_ID`.
 * A shell cannot resume: an answer or a retry relaunches the script, which
 * finds the assembled prompt (with the answer or the failure) in `MDPLAN_PROMPT`.
 */
export const shellRunner: Runner = {
  name: 'shell',
  executable: 'sh',
  install: 'install a POSIX shell (`sh`)',
  canResume: false,
  run: runShell
}

/** Linux caps one environment string at 128 KiB; stay well under it. */
const maxEnvPrompt = 100_000

/**
 * The script to run. The executor assembles prompts for language models (Shared
 * Contract first, retry context or an answer after); prose around a script would
 * run as commands. So when the assembled prompt holds the agent's own prompt,
 * that prompt alone is the script, and the whole text goes to `MDPLAN_PROMPT`.
 */
export function shellScript(request: RunRequest): string {
  const own = request.agent.prompt?.text
  if (own === undefined || own.trim() === '') return request.prompt
  return request.prompt.includes(own.replace(/\s+$/, '')) ? own : request.prompt
}

async function runShell(request: RunRequest): Promise<RunResult> {
  const agentId = `sh-${randomBytes(4).toString('hex')}`
  const script = shellScript(request)
  await request.onAgentId?.(agentId)
  const started = Date.now()
  const result = await spawnAgent({
    file: 'sh',
    args: ['-c', script],
    cwd: request.cwd,
    env: {
      ...request.options.env,
      ...(script !== request.prompt && request.prompt.length <= maxEnvPrompt ? {MDPLAN_PROMPT: request.prompt} : {}),
      MDPLAN_PLAN: request.planFile,
      MDPLAN_AGENT: request.agent.id,
      MDPLAN_AGENT_ID: agentId,
      MDPLAN_ATTEMPT: String(request.attempt)
    },
    logFile: request.logFile,
    timeoutMs: request.timeoutMs,
    signal: request.signal,
    onLine: request.onOutput
  })
  const ok = result.exitCode === 0 && !result.timedOut && !result.interrupted
  return {
    ok,
    agentId,
    finalText: result.stdout,
    reason: ok ? undefined : exitReason(result, 'sh', request.timeoutMs),
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    interrupted: result.interrupted,
    spawnFailed: result.spawnFailed,
    durationMs: Date.now() - started
  }
}
