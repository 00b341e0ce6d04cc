import {execa} from 'execa'

export interface StatusAnswer {
  /** undefined when the command could not start or did not finish in time. */
  exitCode?: number
  /** It did not finish within its limit (it was killed): its answer is unknown. */
  timedOut?: boolean
  stdout: string
  stderr: string
}

/**
 * Ask an installed CLI a quick question before anything launches (`claude auth
 * status`, `codex login status`): stdin closed, a timeout, never throws.
 * Whether an answer that never came (`timedOut`) is a problem is the caller's
 * to say: a login check's is (nothing launches unconfirmed).
 */
export async function runStatusCommand(
  file: string,
  args: readonly string[],
  options: {env: NodeJS.ProcessEnv; cwd: string; timeoutMs?: number; signal?: AbortSignal}
): Promise<StatusAnswer> {
  try {
    const result = await execa(file, args, {
      cwd: options.cwd,
      env: options.env,
      extendEnv: false,
      stdin: 'ignore',
      reject: false,
      timeout: options.timeoutMs ?? 20_000,
      forceKillAfterDelay: 1000,
      cancelSignal: options.signal
    })
    const text = (value: unknown): string => (typeof value === 'string' ? value : '')
    return {exitCode: result.timedOut ? undefined : result.exitCode, ...(result.timedOut ? {timedOut: true} : {}), stdout: text(result.stdout), stderr: text(result.stderr)}
  } catch {
    return {stdout: '', stderr: ''}
  }
}
