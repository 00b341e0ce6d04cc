import {runStatusCommand} from '../../process/run-status-command.js'

/**
 * opencode creates its session at launch but prints the ID only with its first
 * JSON event (about 71 s later with an unreachable model), and `run` cannot be
 * given an ID. So the run is launched with a unique `--title` and this asks
 * `opencode session list --format json` (scoped to the folder) until a session
 * with that title appears. Resolves with its ID, or undefined when `signal`
 * aborts (the ID came by an event, or the run ended) or the tries run out.
 */
export async function probeOpencodeSession(input: {
  file: string
  title: string
  cwd: string
  env: NodeJS.ProcessEnv
  signal: AbortSignal
  intervalMs?: number
  tries?: number
}): Promise<string | undefined> {
  const {file, title, cwd, env, signal} = input
  // Each `session list` costs opencode's whole start-up (about 2 s of CPU): ask rarely, and stop once known.
  const intervalMs = input.intervalMs ?? 3000
  for (let attempt = 0; attempt < (input.tries ?? 15); attempt++) {
    await sleep(attempt === 0 ? Math.min(1000, intervalMs) : intervalMs, signal)
    if (signal.aborted) return undefined
    const answer = await runStatusCommand(file, ['session', 'list', '--format', 'json'], {env, cwd, signal, timeoutMs: 15_000})
    if (signal.aborted) return undefined
    const found = sessionWithTitle(answer.stdout, title)
    if (found) return found
  }
  return undefined
}

export function sessionWithTitle(json: string, title: string): string | undefined {
  try {
    const sessions = JSON.parse(json) as unknown
    if (!Array.isArray(sessions)) return undefined
    for (const session of sessions as Array<{id?: unknown; title?: unknown}>) {
      if (session.title === title && typeof session.id === 'string') return session.id
    }
  } catch {
    // Not JSON yet (an older opencode, or a log line): try again.
  }
  return undefined
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, {once: true})
    function done(): void {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
  })
}
