import {randomBytes} from 'node:crypto'
import {mkdir, writeFile} from 'node:fs/promises'
import {dirname, basename} from 'node:path'
import type {Runner, RunRequest, RunResult} from './runner.js'
import {spawnRequest} from './spawn-request.js'
import {scriptResult} from './script-result.js'
import {agentEnv} from './agent-env.js'
import {splitTemplate} from './split-template.js'

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
 * The one shell: a template that starts `sh -c` / `bash -c` asks for a shell. Its
 * script gets each placeholder as a quoted variable (`"$MDPLAN_PROMPT"`…), never
 * spliced text, so a prompt cannot inject commands.
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

const shells = new Set(['sh', 'bash', 'zsh', 'dash'])

/** Where the shell script is in a template that asks for one (`sh -c '…'`, `/bin/bash -lc '…'`, `env bash -c …`), else -1. */
export function shellScriptIndex(argv: readonly string[]): number {
  let index = 0
  if (argv[0] !== undefined && basename(argv[0]) === 'env') index = 1
  const shell = argv[index]
  if (shell === undefined || !shells.has(basename(shell))) return -1
  for (let flag = index + 1; flag < argv.length - 1; flag++) {
    const word = argv[flag]!
    if (/^-[a-z]*c[a-z]*$/.test(word)) return flag + 1
    if (!word.startsWith('-')) return -1
  }
  return -1
}

const variables: Record<string, string> = {
  prompt: 'MDPLAN_PROMPT',
  prompt_file: 'MDPLAN_PROMPT_FILE',
  agent: 'MDPLAN_AGENT',
  agent_id: 'MDPLAN_AGENT_ID',
  plan: 'MDPLAN_PLAN'
}

/** Fill the placeholders of one argv element (`values`), or in a shell script turn them into variables. */
export function fillTemplate(argv: readonly string[], values: Record<string, string>): string[] {
  const scriptIndex = shellScriptIndex(argv)
  return argv.map((word, index) =>
    word.replace(/\{(prompt_file|prompt|agent_id|agent|plan)\}/g, (_, key: string) =>
      index === scriptIndex ? `"$${variables[key]}"` : (values[key] ?? '')
    )
  )
}

async function runCommand(template: readonly string[], request: RunRequest): Promise<RunResult> {
  const started = Date.now()
  const [file] = template
  const resumeId = request.resume?.sessionId
  let agentId = resumeId ?? `cmd-${randomBytes(4).toString('hex')}`
  await request.onAgentId?.(agentId)
  const promptFile = `${dirname(request.logFile)}/${basename(request.logFile).replace(/\.log$/, '')}.prompt.md`
  const usesFile = template.some((word) => word.includes('{prompt_file}'))
  if (usesFile) {
    await mkdir(dirname(promptFile), {recursive: true})
    await writeFile(promptFile, request.prompt)
  }
  const values = {prompt: request.prompt, prompt_file: promptFile, agent: request.agent.id, agent_id: resumeId ?? '', plan: request.planFile}
  const argv = fillTemplate(template, values)
  const script = shellScriptIndex(template)
  const shellScript = script !== -1 && template[script]!.includes('{prompt}')
  let reported: void | Promise<void> = undefined
  if (file === undefined) {
    return {ok: false, finalText: '', reason: 'the runner template is empty', spawnFailed: true, durationMs: 0}
  }
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
