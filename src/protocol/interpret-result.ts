import type {RunResult} from '../runners/runner.js'
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
  /** Why it failed, one line. */
  reason?: string
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
}

/**
 * Turn a runner's result into an outcome. A process that did not really finish
 * (timeout, interrupt, failed start, rate limit, unknown session) failed
 * whatever it printed; otherwise a RESULT line decides, and with none, the
 * CLI's own verdict (exit code) does.
 */
export function interpretResult(result: RunResult): Outcome {
  const report = parseCompletionReport(result.finalText)
  const base = {
    checkpoint: report?.checkpoint,
    discoveries: report?.discoveries ?? [],
    filesChanged: report?.filesChanged ?? [],
    rateLimited: result.rateLimited === true,
    unknownSession: result.unknownSession === true
  }
  const cut = result.timedOut || result.interrupted || result.spawnFailed || base.rateLimited || base.unknownSession
  const fallbackReason = result.reason ?? (result.exitCode === undefined ? 'failed' : `exit ${result.exitCode}`)
  if (cut) return {...base, kind: 'failed', reason: oneLine(fallbackReason), note: oneLine(fallbackReason, 120)}

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
  return {...base, kind: 'failed', reason: oneLine(fallbackReason), note: oneLine(fallbackReason, 120)}
}
