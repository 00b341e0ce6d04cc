import type {Plan} from '../plan/types.js'
import {logFile} from '../layout/log-file.js'
import {runCommands} from './run-commands.js'
import type {Emitted} from '../executor/exec-effect.js'

/**
 * Run one verification phase (pre-execution checks, the build, the
 * integration tests) with its events; its log is the phase's attempt log.
 * Returns whether it passed.
 */
export async function verify(input: {
  phase: 'pre' | 'build' | 'integration'
  commands: Plan['integrationTests']
  cwd: string
  file: string
  /** Which attempt at this phase (build and integration count them in the table). */
  attempt?: number
  signal?: AbortSignal
  emit: (event: Emitted) => void
}): Promise<boolean> {
  const {phase, commands, cwd, file, emit} = input
  const attempts = input.attempt ?? 1
  emit({type: 'verification-started', phase, command: commands.map((c) => c.script).join('\n')})
  const log = logFile(file, phase === 'pre' ? 'pre-verification' : phase, phase === 'pre' ? new Date().toISOString().replace(/[:.]/g, '-') : attempts)
  const result = await runCommands(commands, {cwd, logFile: log, signal: input.signal, phase})
  emit({type: 'verification-finished', phase, ok: result.ok, attempts, log})
  if (!result.ok) emit({type: 'warning', message: `${phase === 'pre' ? 'pre-execution verification' : phase} failed: ${result.reason} (log: ${log})`})
  return result.ok
}
