import {actionableLine} from './actionable-line.js'
import {oneLine} from './keyed-lines.js'
import {parseCompletionReport} from './parse-completion-report.js'
import {parseResult} from './parse-result.js'

export interface Question {
  question: string
  context: string
  options: string[]
  resumeState: string
}

/** What an attempt means for its row. */
export interface Outcome {
  kind: 'completed' | 'failed' | 'question'
  /** One short line for Notes (completed: the first detail line; failed: the description; question: the question). */
  note?: string
  /** Why it failed, one line that keeps the variable to set or the command to run (`actionableLine`). */
  reason?: string
  /** The CLI's whole failure message, for the log (the note and `reason` are shortened). */
  fullReason?: string
  /** `Details:` of a `RESULT: ERROR`. */
  details?: string
  question?: Question
  checkpoint?: string
  discoveries: string[]
  filesChanged: string[]
  /** Retry later without burning an attempt. */
  rateLimited: boolean
  /** Relaunch instead of resuming. */
  unknownSession: boolean
  /**
   * A configuration error (not logged in, a rejected option or permission
   * mode): fail the agent now, whatever attempts remain; a retry cannot help.
   */
  permanent: boolean
  /** A passing trouble outside the agent (network, server 5xx): like `rateLimited`, wait and retry without using an attempt. */
  transient: boolean
}

/** What the protocol reads of a runner's result (src/runners/runner.ts `RunResult` has these and more). */
export interface RunVerdict {
  ok: boolean
  finalText: string
  reason?: string
  exitCode?: number
  timedOut?: boolean
  interrupted?: boolean
  spawnFailed?: boolean
  rateLimited?: boolean
  configError?: boolean
  transient?: boolean
  unknownSession?: boolean
}

/**
 * Turn a runner's result into an outcome. A CLI that refused its configuration
 * (`permanent`) or met a passing network or server trouble (`transient`), and a
 * process that did not really finish (timeout, interrupt, failed start, rate
 * limit, unknown session), failed whatever it printed; otherwise a RESULT line
 * decides, and with none, the CLI's own verdict (exit code) does.
 */
export function interpretResult(result: RunVerdict): Outcome {
  const report = parseCompletionReport(result.finalText)
  const base = {
    checkpoint: report?.checkpoint,
    discoveries: report?.discoveries ?? [],
    filesChanged: report?.filesChanged ?? [],
    rateLimited: result.rateLimited === true,
    unknownSession: result.unknownSession === true,
    permanent: false,
    transient: false
  }
  const fallbackReason = result.reason ?? (result.exitCode === undefined ? 'failed' : `exit ${result.exitCode}`)
  const failed = {kind: 'failed' as const, reason: actionableLine(fallbackReason), note: actionableLine(fallbackReason, 120), fullReason: fallbackReason}
  // Whatever the agent printed, the CLI's own verdict on its setup or the network decides.
  if (!result.ok && !base.rateLimited && !base.unknownSession && !result.timedOut && !result.interrupted) {
    if (result.configError) return {...base, ...failed, permanent: true}
    if (result.transient) return {...base, ...failed, transient: true}
  }
  const cut = result.timedOut || result.interrupted || result.spawnFailed || base.rateLimited || base.unknownSession
  if (cut) return {...base, ...failed}

  const block = parseResult(result.finalText)
  if (block?.kind === 'question') {
    const {question, context, options, resumeState} = block
    return {...base, kind: 'question', note: oneLine(question, 120), question: {question, context, options, resumeState}}
  }
  if (block?.kind === 'error') {
    const reason = oneLine(block.description ?? block.details?.split('\n')[0] ?? 'the agent reported an error')
    return {...base, kind: 'failed', reason, note: oneLine(reason, 120), details: block.details}
  }
  if (block?.kind === 'success') return {...base, kind: 'completed', note: block.note === undefined ? undefined : oneLine(block.note, 120)}
  if (result.ok) return {...base, kind: 'completed'}
  return {...base, ...failed}
}
