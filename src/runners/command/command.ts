import {randomBytes} from 'node:crypto'
import {writeFile} from 'node:fs/promises'
import {dirname, basename} from 'node:path'
import type {Runner, RunRequest, RunResult} from '../runner.js'
import {spawnRequest} from '../spawn-request.js'
import {scriptResult} from '../run-result.js'
import {learnedAgentId} from '../agent-id.js'
import {agentEnv} from '../agent-env.js'
import {streamedUsage} from '../streamed-usage.js'
import {splitTemplate} from '../template-safety/split-template.js'
import {templateScripts} from '../template-safety/template-scripts.js'
import {quotePlaceholders} from '../template-safety/quote-placeholders.js'
import {anyPlaceholder, placeholderVariables, templateProblem} from '../template-safety/template-problem.js'
import {makeDir} from '../../util/make-dir.js'

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
 * and cannot take a variable, the template is refused (`templateProblem`)
 * unless the plan says `allow_unsafe_template: true` (`unsafeTemplateAllowed`).
 *
 * Agent ID: `cmd-<8 hex>`, drawn before spawning, unless the command prints a
 * line `mdplan-agent-id: <id>` (then that, reported when seen). Resume: only when
 * the template uses `{agent_id}`.
 */
export function commandRunner(template: string, options: {allowUnsafe?: boolean; dataPrograms?: readonly string[]} = {}): Runner {
  const argv = splitTemplate(template)
  const executable = argv[0]
  return {
    name: 'command',
    executable,
    install: executable === undefined ? 'write a command in the runner template' : `install \`${executable}\` or change the runner template \`${template}\``,
    canResume: template.includes('{agent_id}'),
    run: (request) => runCommand(argv, request, options.allowUnsafe ?? false, options.dataPrograms ?? [])
  }
}

/** Fill the placeholders of each argv element with `values`, or in a shell script turn them into quoted variables. */
export function fillTemplate(argv: readonly string[], values: Record<string, string>): string[] {
  const {scripts} = templateScripts(argv)
  return argv.map((word, index) =>
    scripts.includes(index) ? quotePlaceholders(word, placeholderVariables) : word.replace(new RegExp(anyPlaceholder.source, 'g'), (_, key: string) => values[key] ?? '')
  )
}

async function runCommand(template: readonly string[], request: RunRequest, allowUnsafe: boolean, named: readonly string[]): Promise<RunResult> {
  const started = Date.now()
  const [file] = template
  if (file === undefined) {
    return {ok: false, finalText: '', reason: 'the runner template is empty', spawnFailed: true, durationMs: 0}
  }
  // The plan's explicit `allow_unsafe_template: true` runs it anyway (validate and the run's start warn).
  const problem = allowUnsafe ? undefined : templateProblem(template, named)
  if (problem !== undefined) return {ok: false, finalText: '', reason: `unsafe runner template: ${problem}`, spawnFailed: true, durationMs: 0}
  const resumeId = request.resume?.sessionId
  const agentId = await learnedAgentId(request, resumeId ?? `cmd-${randomBytes(4).toString('hex')}`)
  const promptFile = `${dirname(request.logFile)}/${basename(request.logFile).replace(/\.log$/, '')}.prompt.md`
  const usesFile = template.some((word) => word.includes('{prompt_file}'))
  if (usesFile) {
    makeDir(dirname(promptFile))
    await writeFile(promptFile, request.prompt)
  }
  const values = {prompt: request.prompt, prompt_file: promptFile, agent: request.agent.id, agent_id: resumeId ?? '', plan: request.planFile}
  const argv = fillTemplate(template, values)
  const shellScript = templateScripts(template).scripts.some((index) => template[index]!.includes('{prompt}'))
  const result = await spawnRequest(request, {
    file: argv[0]!,
    args: argv.slice(1),
    env: {
      ...agentEnv(request, resumeId ?? ''),
      ...(usesFile ? {MDPLAN_PROMPT_FILE: promptFile} : {}),
      // Only a shell script reads the prompt from the environment (argv carries it otherwise).
      ...(shellScript ? {MDPLAN_PROMPT: request.prompt} : {})
    },
    onLine: streamedUsage(request, (line) => {
      const match = /^mdplan-agent-id:\s*(\S+)\s*$/i.exec(line)
      if (match) agentId.learn(match[1]!)
    })
  })
  await agentId.settled()
  return scriptResult(result, {agentId: agentId.current!, file, timeoutMs: request.timeoutMs, started})
}
