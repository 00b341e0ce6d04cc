import {quotePlaceholders, UnsafePlaceholderError} from './quote-placeholders.js'
import {codePositions} from './code-positions.js'
import {scriptProblem} from './script-problem.js'
import {receiverProblem} from './receiver-problem.js'

/** Each placeholder's variable, as a shell script of a template reads it (`quotePlaceholders`). */
export const placeholderVariables: Record<string, string> = {
  prompt: 'MDPLAN_PROMPT',
  prompt_file: 'MDPLAN_PROMPT_FILE',
  agent: 'MDPLAN_AGENT',
  agent_id: 'MDPLAN_AGENT_ID',
  plan: 'MDPLAN_PLAN'
}

/** Any of the placeholders a template may hold. */
export const anyPlaceholder = /\{(prompt_file|prompt|agent_id|agent|plan)\}/

/**
 * Why a template cannot be shown to pass every placeholder as data, or
 * undefined. Safe by construction: a placeholder may reach only a program
 * known to take it as data, where that program takes it as data
 * (`receiverProblem`: a data utility, an agent CLI after `--`, a shell's
 * positional parameters, a program the plan names in `named`), followed
 * through known wrappers; inside a POSIX shell's `-c` script it becomes a
 * quoted variable and the script is held to the same rule (`scriptProblem`).
 * On top of that, the known ways to run code are named in the message
 * (`codePositions`: `python3 -Ic {prompt}`, `env -iS {prompt}`,
 * `timeout 9 {prompt}`, `sh {prompt_file}`), and a placeholder must be a
 * whole argv element or a `--flag=` value.
 */
export function templateProblem(argv: readonly string[], named: readonly string[] = []): string | undefined {
  const positions = codePositions(argv)
  for (const [index, word] of argv.entries()) {
    const found = anyPlaceholder.exec(word)
    if (!found) continue
    const position = positions.find((candidate) => candidate.index === index)
    if (position?.kind === 'script') continue
    if (position?.kind === 'program') {
      return index === 0 ? `{${found[1]}} is the program to run, so prompt text would name the command` : `${position.program} starts \`${word}\` as a program, so a placeholder there would run prompt text as a command`
    }
    if (position?.kind === 'code') return `${position.program} runs \`${word}\` as code, so a placeholder there would run prompt text: pass {prompt_file} to a program that reads it, or read $MDPLAN_PROMPT from a shell script as "$1"`
    if (!wholeElement.test(word)) return `{${found[1]}} must be a whole argument or the value of a --flag= argument, not part of \`${word}\` (prompt text could turn it into another option)`
  }
  for (const position of positions) {
    if (position.kind !== 'script') continue
    try {
      quotePlaceholders(argv[position.index]!, placeholderVariables)
    } catch (error) {
      if (error instanceof UnsafePlaceholderError) return error.message
      throw error
    }
    const problem = scriptProblem(argv[position.index]!, argv.slice(position.index + 1).some((word) => anyPlaceholder.test(word)), new Set(), named)
    if (problem) return `the script of ${position.program} -c ${problem}`
  }
  return receiverProblem(
    argv.map((text) => ({text, tainted: anyPlaceholder.test(text)})),
    false,
    {named, scriptsAreQuoted: true}
  )
}

/** A placeholder alone, or as the value of `--flag=` / `-f=`. */
const wholeElement = /^(?:--?[A-Za-z0-9][A-Za-z0-9_.-]*=)?\{(prompt_file|prompt|agent_id|agent|plan)\}$/
