import {randomBytes} from 'node:crypto'
import {writeFile} from 'node:fs/promises'
import {dirname, basename} from 'node:path'
import type {Runner, RunRequest, RunResult} from './runner.js'
import {spawnRequest} from './spawn-request.js'
import {scriptResult} from './script-result.js'
import {agentEnv} from './agent-env.js'
import {splitTemplate} from './split-template.js'
import {templateScripts} from './template-scripts.js'
import {quotePlaceholders, UnsafePlaceholderError} from './quote-placeholders.js'
import {makeDir} from '../util/make-dir.js'

/**
 * A runner from a command template (front matter `runner: "my-agent --task {prompt_file}"`).
 *
 * The template is split into argv by `splitTemplate` and started directly, never
 * through a shell, so a placeholder always becomes (part of) exactly one argv
 * element whatever it contains:
 *   {prompt}       the prompt          {prompt_file}  a file holding the prompt (beside the log)
 *   {agent}        the plan's agent ID {agent_id}     the session being resumed, else empty
 *   {plan}         the plan's path
 * Unknown `{…}` stay as written (templates may hold JSON).
 *
 * A template may still start a shell itself, anywhere in its argv (`timeout 60
 * bash -o pipefail -c '…'`, see `templateScripts`). That script gets each
 * placeholder as a variable quoted for where it stands (`quotePlaceholders`),
 * never spliced text, so a prompt cannot inject commands and a quoted
 * placeholder stays one word. Where something would run a placeholder as code
 * and cannot take a variable, the template is refused (`templateProblem`).
 *
 * Agent ID: `cmd-<8 hex>`, drawn before spawning, unless the command prints a
 * line `mdplan-agent-id: <id>` (then that, reported when seen). Resume: only when
 * the template uses `{agent_id}`.
 */
export function commandRunner(template: string): Runner {
  const argv = splitTemplate(template)
  const executable = argv[0]
  return {
    name: 'command',
    executable,
    install: executable === undefined ? 'write a command in the runner template' : `install \`${executable}\` or change the runner template \`${template}\``,
    canResume: template.includes('{agent_id}'),
    run: (request) => runCommand(argv, request)
  }
}

const variables: Record<string, string> = {
  prompt: 'MDPLAN_PROMPT',
  prompt_file: 'MDPLAN_PROMPT_FILE',
  agent: 'MDPLAN_AGENT',
  agent_id: 'MDPLAN_AGENT_ID',
  plan: 'MDPLAN_PLAN'
}
const anyPlaceholder = /\{(prompt_file|prompt|agent_id|agent|plan)\}/

/**
 * Why a template cannot be run safely, or undefined: a placeholder in a word
 * that something runs as code but cannot read as a variable (`python -c`,
 * `ssh`, `eval`, a quoted heredoc, a shell started inside the script).
 */
export function templateProblem(argv: readonly string[]): string | undefined {
  const {scripts, code} = templateScripts(argv)
  for (const {index, program} of code) {
    if (anyPlaceholder.test(argv[index]!)) return `${program} runs \`${argv[index]}\` as code, so a placeholder there would run prompt text: pass {prompt_file}, or read $MDPLAN_PROMPT from a shell script`
  }
  for (const index of scripts) {
    try {
      quotePlaceholders(argv[index]!, variables)
    } catch (error) {
      if (error instanceof UnsafePlaceholderError) return error.message
      throw error
    }
    const nested = nestedProblem(argv[index]!)
    if (nested) return nested
  }
  return undefined
}

/** A shell inside the script (`sh -c 'bash -c "{prompt}"'`) would run the expanded variable as code. */
function nestedProblem(script: string): string | undefined {
  let words: string[]
  try {
    words = splitTemplate(script.replace(/[;&|()]/g, ' '))
  } catch {
    return undefined
  }
  const {scripts, code} = templateScripts(words)
  const inner = [...scripts, ...code.map((found) => found.index)].find((index) => anyPlaceholder.test(words[index]!))
  return inner === undefined ? undefined : `the script runs \`${words[inner]}\` as code again, so a placeholder there would run prompt text: pass it as "$1" or read $MDPLAN_PROMPT in the inner script`
}

/** Fill the placeholders of each argv element with `values`, or in a shell script turn them into quoted variables. */
export function fillTemplate(argv: readonly string[], values: Record<string, string>): string[] {
  const {scripts} = templateScripts(argv)
  return argv.map((word, index) =>
    scripts.includes(index) ? quotePlaceholders(word, variables) : word.replace(new RegExp(anyPlaceholder.source, 'g'), (_, key: string) => values[key] ?? '')
  )
}

async function runCommand(template: readonly string[], request: RunRequest): Promise<RunResult> {
  const started = Date.now()
  const [file] = template
  if (file === undefined) {
    return {ok: false, finalText: '', reason: 'the runner template is empty', spawnFailed: true, durationMs: 0}
  }
  const problem = templateProblem(template)
  if (problem !== undefined) return {ok: false, finalText: '', reason: `unsafe runner template: ${problem}`, spawnFailed: true, durationMs: 0}
  const resumeId = request.resume?.sessionId
  let agentId = resumeId ?? `cmd-${randomBytes(4).toString('hex')}`
  await request.onAgentId?.(agentId)
  const promptFile = `${dirname(request.logFile)}/${basename(request.logFile).replace(/\.log$/, '')}.prompt.md`
  const usesFile = template.some((word) => word.includes('{prompt_file}'))
  if (usesFile) {
    makeDir(dirname(promptFile))
    await writeFile(promptFile, request.prompt)
  }
  const values = {prompt: request.prompt, prompt_file: promptFile, agent: request.agent.id, agent_id: resumeId ?? '', plan: request.planFile}
  const argv = fillTemplate(template, values)
  const shellScript = templateScripts(template).scripts.some((index) => template[index]!.includes('{prompt}'))
  let reported: void | Promise<void> = undefined
  const result = await spawnRequest(request, {
    file: argv[0]!,
    args: argv.slice(1),
    env: {
      ...agentEnv(request, resumeId ?? ''),
      ...(usesFile ? {MDPLAN_PROMPT_FILE: promptFile} : {}),
      // Only a shell script reads the prompt from the environment (argv carries it otherwise).
      ...(shellScript ? {MDPLAN_PROMPT: request.prompt} : {})
    },
    onLine: (line) => {
      const match = /^mdplan-agent-id:\s*(\S+)\s*$/i.exec(line)
      if (match && match[1] !== agentId) {
        agentId = match[1]!
        reported = request.onAgentId?.(agentId)
      }
      request.onOutput?.(line)
    }
  })
  await reported
  return scriptResult(result, {agentId, file: file, timeoutMs: request.timeoutMs, started})
}
