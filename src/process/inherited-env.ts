/**
 * What belongs to one attempt of one agent: the variables mdplan sets for it
 * (`agentEnv`, and the retry and answer context of `agentPrompt`). They reach
 * exactly that attempt and nothing it starts through mdplan: a child
 * `mdplan run` (a child plan, or a script that runs one) holds its parent
 * agent's values in its own environment, and its agents must never act on
 * another agent's answer, resume state or failure history.
 */
export const perAgentVariables = [
  'MDPLAN_PLAN',
  'MDPLAN_AGENT',
  'MDPLAN_AGENT_ID',
  'MDPLAN_ATTEMPT',
  'MDPLAN_PREVIOUS_FAILURE',
  'MDPLAN_CHECKPOINT',
  'MDPLAN_ANSWER',
  'MDPLAN_REVIEW',
  'MDPLAN_RESUME_STATE',
  // The attempt's span (src/trace/): an agent's own child gets its agent's, never the run's parent.
  'TRACEPARENT',
  'TRACESTATE'
] as const

/**
 * The environment an agent's process inherits: mdplan's own, without another
 * agent's per-agent variables; the attempt's own (`own`) are added on top.
 */
export function inheritedEnv(own: Record<string, string> | undefined, from: NodeJS.ProcessEnv = process.env): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {...from}
  for (const name of perAgentVariables) delete env[name]
  return {...env, ...own}
}
