import {randomBytes} from 'node:crypto'
import type {Runner, RunRequest, RunResult} from '../runner.js'
import {spawnRequest} from '../spawn-request.js'
import {scriptResult} from '../run-result.js'
import {drawnAgentId} from '../agent-id.js'
import {agentEnv} from '../agent-env.js'
import {streamedUsage} from '../streamed-usage.js'

/**
 * The prompt IS the script: `sh -c <prompt>` in the agent's folder. The only
 * runner where a prompt passes through a shell, on purpose.
 *
 * Agent ID: `sh-<8 hex>`, drawn before spawning (like claude's `--session-id`)
 * so the table has it before the script can finish. A shell has no session,
 * so the ID only labels the attempt; the script sees it as `MDPLAN_AGENT_ID`.
 * A shell cannot resume: an answer or a retry relaunches the script. The
 * executor sends the agent's own prompt as the script (prose around it would
 * run as commands) and the retry or answer context in the environment
 * (`MDPLAN_PREVIOUS_FAILURE`, `MDPLAN_CHECKPOINT`, `MDPLAN_ANSWER`, `MDPLAN_REVIEW`).
 */
export const shellRunner: Runner = {
  name: 'shell',
  executable: 'sh',
  install: 'install a POSIX shell (`sh`)',
  canResume: false,
  newAgentId: () => `sh-${randomBytes(4).toString('hex')}`,
  run: runShell
}

async function runShell(request: RunRequest): Promise<RunResult> {
  const agentId = await drawnAgentId(request, shellRunner)
  const started = Date.now()
  const result = await spawnRequest(request, {file: 'sh', args: ['-c', request.prompt], env: agentEnv(request, agentId), onLine: streamedUsage(request)})
  return scriptResult(result, {agentId, file: 'sh', timeoutMs: request.timeoutMs, started})
}
