import {assemblePrompt, type AssemblePromptInput} from './assemble-prompt.js'

/**
 * What one attempt sends: the assembled prompt for agent CLIs; for the shell
 * runner the prompt is the script itself, so it goes verbatim and the retry
 * and answer context travel in the environment instead
 * (`MDPLAN_PREVIOUS_FAILURE`, `MDPLAN_CHECKPOINT`, `MDPLAN_ANSWER`, `MDPLAN_REVIEW`).
 */
export function agentPrompt(runner: {name: string}, input: AssemblePromptInput): {prompt: string; env: Record<string, string>} {
  if (runner.name !== 'shell' && runner.name !== 'plan') return {prompt: assemblePrompt(input), env: {}}
  const env: Record<string, string> = {}
  // A child plan passes an answer down to the child agent its Resume State names.
  if (runner.name === 'plan' && input.answer) env.MDPLAN_RESUME_STATE = input.answer.resumeState
  if (input.retry) env.MDPLAN_PREVIOUS_FAILURE = input.retry.previousFailure
  if (input.retry?.checkpoint) env.MDPLAN_CHECKPOINT = input.retry.checkpoint
  if (input.answer) env.MDPLAN_ANSWER = input.answer.answer
  if (input.review !== undefined) env.MDPLAN_REVIEW = input.review
  return {prompt: input.agent.prompt?.text ?? '', env}
}

/** Merge the attempt's context variables into the runner options. */
export function withEnv<Options extends {env?: Record<string, string>}>(options: Options, env: Record<string, string>): Options {
  return Object.keys(env).length === 0 ? options : {...options, env: {...options.env, ...env}}
}
