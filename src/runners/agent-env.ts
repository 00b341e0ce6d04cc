import type {RunRequest} from './runner.js'

/** What a script (shell runner, command template) learns about its attempt from the environment. */
export function agentEnv(request: RunRequest, agentId: string): Record<string, string> {
  return {
    MDPLAN_PLAN: request.planFile,
    MDPLAN_AGENT: request.agent.id,
    MDPLAN_AGENT_ID: agentId,
    MDPLAN_ATTEMPT: String(request.attempt)
  }
}
