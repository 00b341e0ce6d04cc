import type {Runner, RunRequest} from './runner.js'
import {executableOf} from './executable-of.js'

/**
 * The Agent ID of an attempt whose runner draws it (`newAgentId`: claude and gemini `--session-id`, shell, a
 * child plan): the session resumed (a runner that can resume), else the one the executor drew before
 * (`request.agentId`), else a new one. Reported through `onAgentId` before anything spawns.
 */
export async function drawnAgentId(request: RunRequest, runner: Runner): Promise<string> {
  const agentId = (runner.canResume ? request.resume?.sessionId : undefined) ?? request.agentId ?? runner.newAgentId!()
  await request.onAgentId?.(agentId)
  return agentId
}

/** An Agent ID the CLI says while it runs; `settled` waits for the last report. */
export interface LearnedAgentId {
  readonly current: string | undefined
  /** The ID the CLI said: reported when it is new. */
  learn(id: string): void
  settled(): Promise<void>
}

/**
 * The Agent ID of an attempt whose CLI says it while it runs (codex's thread, opencode's session, a command
 * template's `mdplan-agent-id:` line): `known` (a resumed session, or one drawn here) is reported at once,
 * before spawning; each new ID the CLI says is reported as it comes.
 */
export async function learnedAgentId(request: RunRequest, known: string | undefined): Promise<LearnedAgentId> {
  if (known !== undefined) await request.onAgentId?.(known)
  let current = known
  let reported: void | Promise<void> = undefined
  return {
    get current() {
      return current
    },
    learn(id) {
      if (id === current) return
      current = id
      reported = request.onAgentId?.(id)
    },
    settled: async () => {
      await reported
    }
  }
}

/**
 * How an agent CLI that says its own ID (codex, opencode) starts an attempt: the executable to start (its env
 * override applied), the session it resumes, its Agent ID (the resumed one reported before spawning, see
 * `learnedAgentId`), and the clock, started once that report is through.
 */
export async function learningAttempt(runner: Runner, request: RunRequest): Promise<{file: string; resumeId?: string; agentId: LearnedAgentId; started: number}> {
  const file = executableOf(runner) ?? runner.name
  const resumeId = request.resume?.sessionId
  const agentId = await learnedAgentId(request, resumeId)
  return {file, resumeId, agentId, started: Date.now()}
}
