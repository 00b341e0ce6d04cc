import {parseJobKey} from '../hosts/job-key.js'
import type {RowNotes} from './row-notes.js'

/**
 * The number of the attempt a launch starts. A launch that goes on with an attempt that never ended
 * on its own keeps its number (and log), as it always has: an answered question, an attempt a killed
 * run left (`resumes`), one paused by a rate limit or relaunched because its session was lost (their
 * notes say so). Any other launch is the next one after every attempt the row's `attempt N:` notes,
 * this run and the logs on disk know of (`known`, 0 for none): so a re-queued agent (a person's
 * `pending`, with the Notes cleared or not) never shares a number, an `attempt N:` note or a log with
 * an earlier attempt. Pure.
 */
export function attemptNumber(notes: RowNotes, known: number, resumes: boolean): number {
  const failed = Math.max(0, ...notes.attempts.keys())
  const goesOn = resumes || notes.paused !== undefined || notes.relaunched !== undefined
  // The attempt a dead run's row names by its job's key (`…-a2-…`) is the one it goes on with, even when that run
  // died before the launch made its log: a re-queued agent's completed attempts leave no `attempt N:` note.
  const named = resumes ? (parseJobKey(notes.job?.key ?? '')?.attempt ?? 0) : 0
  return goesOn ? Math.max(failed + 1, known, named) : Math.max(failed, known) + 1
}
