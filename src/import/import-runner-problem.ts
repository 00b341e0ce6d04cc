import {builtinRunners} from '../runners/builtin-runners.js'
import {templateProblem} from '../runners/template-safety/template-problem.js'
import {splitTemplate} from '../runners/template-safety/split-template.js'

/**
 * Why an imported plan may not use `runner`, or undefined. An imported
 * prompt is an issue's English text (its Verification block, its context),
 * so a runner that runs the prompt as code would run the queue: the `shell`
 * runner, and any command template that cannot be shown to pass the prompt
 * as data (`templateProblem`: the same rule `validate` applies, with the
 * programs the plan names in `template_data_programs`).
 */
export function importRunnerProblem(runner: string, dataPrograms: readonly string[] = []): string | undefined {
  const name = runner.trim()
  if (name.toLowerCase() === 'shell') {
    return 'the shell runner runs each prompt as a shell script, and an imported prompt is the issue\u2019s own text: choose claude, codex, gemini or opencode, or a command template that passes {prompt} or {prompt_file} as data'
  }
  if (builtinRunners.has(name.toLowerCase())) return undefined
  let problem: string | undefined
  try {
    problem = templateProblem(splitTemplate(name), dataPrograms)
  } catch (error) {
    problem = error instanceof Error ? error.message : String(error)
  }
  return problem === undefined ? undefined : `the runner template \`${name}\` cannot be shown to pass the prompt as data: ${problem}`
}
