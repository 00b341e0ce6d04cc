import {existsSync} from 'node:fs'
import {appendFile} from 'node:fs/promises'
import {dirname} from 'node:path'
import type {Command} from '../plan/types.js'
import {spawnAgent} from '../process/spawn-agent.js'
import {lastLine} from '../process/process-reason.js'
import {makeDir} from '../util/make-dir.js'

export interface FailedLine {
  /** 1-based line within the block (or within the `build` command). */
  line: number
  /** The plan's line, for a fenced block. */
  planLine?: number
  /** The block's text on that line, trimmed. */
  text: string
}

export interface CommandsResult {
  ok: boolean
  /** One line on the first failure: which line of which block, its exit code and last line of output. */
  reason?: string
  /** The line that failed, when the shell could tell. */
  failed?: FailedLine
}

const marker = /^mdplan: line (\d+) of this block failed \(exit (\d+)\)$/gm

/**
 * The script as a person running the lines one by one would see it: stop at
 * the first command that fails, a failing command before a `|` included. bash
 * reports the failing line from an ERR trap; the last report is the block's
 * own line even when the failure happened inside a function or subshell it
 * called. The prelude shares the script's first line, so LINENO and the
 * shell's own messages (`bash: line 3: pnpm: command not found`) count the
 * block's lines.
 */
function strictScript(script: string, shell: 'bash' | 'sh'): string {
  if (shell === 'sh') return `set -e; (set -o pipefail) 2>/dev/null && set -o pipefail; ${script}`
  return `set -Eeo pipefail; trap 's=$?; echo "mdplan: line $LINENO of this block failed (exit $s)" >&2' ERR; ${script}`
}

/**
 * Run verification blocks one after another, each as a strict script
 * (`strictScript`) with bash when it is installed, else `sh`, stopping at the
 * first failure. Output goes to `logFile`, never to the plan. `phase: 'build'`
 * says the command is the front matter's `build`, which has no block lines in
 * the plan.
 */
export async function runCommands(
  commands: readonly Command[],
  options: {cwd: string; logFile: string; signal?: AbortSignal; env?: Record<string, string>; phase?: string}
): Promise<CommandsResult> {
  const shell = hasBash() ? 'bash' : 'sh'
  for (const command of commands) {
    if (shell === 'sh') await note(options.logFile, noBashNote)
    const result = await spawnAgent({
      file: shell,
      args: ['-c', strictScript(command.script, shell)],
      cwd: options.cwd,
      env: options.env,
      logFile: options.logFile,
      signal: options.signal
    })
    if (result.exitCode === 0) continue
    const failed = failedLine(command, result.stderr, options.phase === 'build')
    const stderr = result.stderr.replace(marker, '')
    const detail = lastLine(stderr) || lastLine(result.stdout)
    const how = result.interrupted ? 'interrupted' : `exit ${result.exitCode ?? result.signal}`
    const where = failed
      ? `${failed.planLine === undefined ? `line ${failed.line}` : `line ${failed.planLine} (line ${failed.line} of the block)`}: \`${failed.text}\``
      : options.phase === 'build' ? 'the build command' : `the block at line ${command.position.start.line}`
    const reason = `${where} failed (${how})${detail ? `: ${detail}` : ''}`
    await note(options.logFile, `mdplan: ${reason}`)
    return {ok: false, reason, failed}
  }
  return {ok: true}
}

function failedLine(command: Command, stderr: string, build: boolean): FailedLine | undefined {
  const reports = [...stderr.matchAll(marker)]
  const last = reports[reports.length - 1]
  if (!last) return undefined
  const line = Number(last[1])
  const text = command.script.split('\n')[line - 1]?.trim()
  if (text === undefined) return undefined
  // A fenced block's first script line is the line after its opening fence.
  return {line, text, planLine: build ? undefined : command.position.start.line + line}
}

async function note(logFile: string, text: string | undefined): Promise<void> {
  if (text === undefined) return
  makeDir(dirname(logFile))
  await appendFile(logFile, `${text}\n`)
}

const noBashNote = 'mdplan: bash is not installed; with sh a failing command before `|` may go unnoticed, and the failing line is not known'

let bash: boolean | undefined
function hasBash(): boolean {
  bash ??= ['/bin/bash', '/usr/bin/bash', '/usr/local/bin/bash'].some((path) => existsSync(path))
  return bash
}
