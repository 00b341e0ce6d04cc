import {access, readFile} from 'node:fs/promises'
import {join} from 'node:path'
import type {HostJob, HostRun} from '../host.js'
import type {HostCommand} from '../../process/process-types.js'
import type {HostSpec} from '../host-spec.js'
import {jobAttempt, type JobAttempt} from '../job-attempt.js'

/** What the engine says of the job its key names now (nothing: it knows no such job). */
export interface JobView {
  id?: string
  /** `unknown`: a state the engine should not leave a job in; it ends the attempt if it does not move. */
  phase?: 'queued' | 'running' | 'ended' | 'lost' | 'unknown'
  /** The engine's own word for the state (`NODE_FAIL`), for messages. */
  detail?: string
}

export interface FollowInput {
  spec: HostSpec
  /** `slurm`: the Notes key that carries the engine's job id. */
  engine: string
  job: HostJob
  command: HostCommand
  /** The job folder, shared with the engine's workers: `started`, `out`, `err`, `pid`, `rc`. */
  folder: string
  settleMs: number
  view: (knownId: string | undefined) => Promise<JobView | {error: string}>
  submit: (env: Record<string, string>) => Promise<{id: string} | {error: string}>
  /** End the job and remove its folder; true once the engine confirms nothing of it runs or waits. */
  cancel: (key: string) => Promise<boolean>
}

/** What the follow knows of the job between looks. */
interface Track {
  engineId?: string
  submitted: boolean
  submits: number
  submitError?: string
  needSubmit: boolean
  /** The engine held the job (queued or running) at some look. */
  held: boolean
  goneSince?: number
  endedSince?: number
}

/**
 * Run one attempt as an engine's job whose folder this machine can read:
 * submit (or find the job the key already names), follow its output from
 * byte 0, and end when its exit code is written. The engine's queue time is
 * reported in Notes and not counted against the timeout; a job whose worker
 * the engine gave up on, or that vanished while it ran, is `lost`; a job
 * that left the queue without ever starting (cancelled by hand, forgotten)
 * never started its agent; a state that does not move ends it too.
 */
export async function followJob(input: FollowInput): Promise<HostRun> {
  const {spec, job, engine} = input
  const frame = jobAttempt(job, input.command, {passed: spec.env, host: spec, timerNow: false})
  if (frame.stop.aborted) return frame.finish({})
  const track: Track = {submitted: false, submits: 0, needSubmit: !job.reattach, held: false}
  // A new attempt's Notes start clean of the last one's engine details; a rerun keeps its job's.
  if (!job.reattach) frame.notes({[engine]: undefined, queued: undefined})
  for (let wait = 100; ; ) {
    // After a lost lock the job may be the new owner's: stop following it, leave it running.
    if (frame.stop.aborted) return frame.stopped({cancel: async () => void (await input.cancel(job.key))})
    if (track.needSubmit) await submit(input, frame, track)
    const seen = await input.view(track.engineId)
    if (!('error' in seen)) {
      const end = await look(input, frame, track, seen)
      if (end === 'submit') continue
      if (end) return end
    } else if (frame.silent) return frame.lost(seen.error)
    await frame.pause(wait)
    wait = Math.min(Math.round(wait * 1.5), 1000)
  }
}

async function submit(input: FollowInput, frame: JobAttempt, track: Track): Promise<void> {
  track.needSubmit = false
  track.submitted = true
  track.submits++
  const answer = await input.submit(frame.env)
  // Queued from the submit on, until it starts; a rerun knows only what it sees queued.
  frame.submitted()
  if ('id' in answer) {
    track.engineId = answer.id
    frame.notes({[input.engine]: answer.id})
  } else track.submitError = answer.error
  // Either way the queue is asked next: a submit whose answer was lost is there under its key.
  track.goneSince = Date.now()
}

/** One look at the engine's word and the job's folder: the attempt's end, another submit, or nothing yet. */
async function look(input: FollowInput, frame: JobAttempt, track: Track, seen: JobView): Promise<HostRun | 'submit' | undefined> {
  const {spec, job, engine, settleMs} = input
  const file = (name: string): string => join(input.folder, name)
  const now = Date.now()
  frame.heard()
  if (seen.id !== undefined && seen.id !== track.engineId) {
    // Found under its key, not from a submit's answer: a rerun, or an answer that was lost.
    frame.attached = true
    track.engineId = seen.id
    frame.notes({[engine]: seen.id})
  }
  await frame.drain(file('out'), 'out')
  await frame.drain(file('err'), 'err')
  // The batch script's first act: a job that made it began (the agent may have run).
  const ran = (await exists(file('started'))) || (await exists(file('pid')))
  if (seen.phase === 'queued' || seen.phase === 'running') track.held = true
  if (seen.phase === 'queued') frame.queued()
  if (seen.phase === 'running' || ran) frame.running()
  if (seen.phase === 'lost') return frame.lost(`${engine} job ${track.engineId}: ${seen.detail}`)
  if (await exists(file('rc'))) {
    const rc = Number((await readFile(file('rc'), 'utf8')).trim())
    return frame.finish({exitCode: Number.isInteger(rc) ? rc : 125})
  }
  if (seen.phase === 'ended' && ran) {
    track.endedSince ??= now
    if (now - track.endedSince > settleMs) return frame.finish({signal: 'SIGKILL', error: `${engine} ended the job ${track.engineId} (${seen.detail}) before it wrote its exit code`})
  } else track.endedSince = undefined
  if (seen.phase === 'unknown' ? frame.stuck(seen.detail ?? 'unknown') : frame.stuck(undefined)) return unmoved(input, frame, ran, `stayed ${seen.detail}`)
  // Gone from the queue, or ended there without ever running here (cancelled by hand or by a Ctrl-C, forgotten).
  if (seen.phase !== undefined && !(seen.phase === 'ended' && !ran)) return (track.goneSince = undefined)
  track.goneSince ??= now
  const settled = now - track.goneSince > settleMs
  // It ran, and neither the engine nor the folder knows how it ended.
  if (ran) return settled ? frame.lost(`the job ${job.key} vanished from ${engine} while it ran`) : undefined
  // It was in the queue and left it without starting: its agent never ran.
  if (track.held) return settled ? unmoved(input, frame, false, `left the queue (${seen.detail ?? 'gone'}) before it started`) : undefined
  // Never submitted (a rerun of a launch that died before its submit), or the submit never arrived: once more, same key.
  if (track.submitted && !settled) return undefined
  if (track.submits >= 3) return frame.finish({spawnFailed: true, error: `${spec.name}: could not submit ${job.key}: ${track.submitError ?? 'the job never appeared in the queue'}`})
  track.needSubmit = true
  return 'submit'
}

/** A job that does not move, or left the queue unstarted: ended (confirmed), then the attempt's end. */
async function unmoved(input: FollowInput, frame: JobAttempt, ran: boolean, what: string): Promise<HostRun> {
  const {job, engine} = input
  if (!(await input.cancel(job.key))) return frame.lost(`the job ${job.key} ${what}, and ${engine} would not confirm it ended`)
  if (ran) return frame.finish({signal: 'SIGKILL', error: `the ${engine} job ${job.key} ${what}`})
  return frame.notStarted(`the ${engine} job ${job.key} ${what}`)
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(() => true, () => false)
}
