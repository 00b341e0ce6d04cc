import type {Agent, Diagnostic, Plan} from '../plan/types.js'
import type {Runner} from './runner.js'
import {runnerName} from './resolve-runner.js'
import {builtinRunners} from './builtin-runners.js'

/** Linux's limit on one argv element or environment string (MAX_ARG_STRLEN, 32 pages), terminating NUL included. */
export const maxArgBytes = 128 * 1024 - 1

/**
 * Agents whose first prompt is too large for their runner, as warnings at the
 * prompt's position (`validate` prints them; the run would fail every attempt
 * with E2BIG). The built-in agent CLIs take large prompts on stdin; a command
 * template gets `{prompt}` as an argument or variable, and the shell runner
 * gets its script as `sh -c` argument: those cannot. The caller resolves each agent's runner and assembles its
 * first prompt (src/protocol/agent-prompt.ts), as a run would.
 */
export function checkPromptSizes(
  plan: Plan,
  input: {runnerOf: (agent: Agent) => Runner; promptOf: (runner: Runner, agent: Agent) => string},
  runnerFlag?: string
): Diagnostic[] {
  const warnings: Diagnostic[] = []
  for (const agent of plan.agents) {
    const runner = input.runnerOf(agent)
    const name = runner.name
    if (builtinRunners.has(name) && name !== 'shell') continue
    const template = runnerName(plan, agent, runnerFlag)
    if (name === 'command' && !template.includes('{prompt}')) continue
    const bytes = Buffer.byteLength(input.promptOf(runner, agent), 'utf8')
    if (bytes <= maxArgBytes) continue
    const size = `${Math.round(bytes / 1024)} KiB`
    const fix =
      name === 'shell'
        ? 'the shell runner passes the script to `sh -c`; put it in a script file and run that'
        : 'the runner template passes {prompt} as one argument or variable; use {prompt_file} instead'
    warnings.push({
      severity: 'warning',
      rule: 'prompt-too-large',
      reason: `agent ${agent.id}'s prompt is ${size}, over the 128 KiB Linux allows one argument (E2BIG, every attempt would fail at once): ${fix}`,
      file: agent.prompt?.file ?? plan.file,
      place: agent.prompt?.position ?? agent.position
    })
  }
  return warnings
}
