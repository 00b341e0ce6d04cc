import {createWriteStream} from 'node:fs'
import {access, open, readFile} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import {formatDuration} from '../../util/format-duration.js'
import {DetachRequest} from '../detach-request.js'
import type {HostJob, HostRun} from '../host.js'
import type {HostCommand} from '../../process/process-types.js'
import type {HostSpec} from '../host-spec.js'
import {lineSplitter} from '../../process/line-splitter.js'
import {makeDir} from '../../util/make-dir.js'

/** What the engine says of the job its key names now (nothing: it knows no such job). */
export interface JobView {
  id?: string
  phase?: 'queued' | 'running' | 'ended' | 'lost'
  /** The engine's own word for the state (`NODE_FAIL`), for messages. */
  detail?: string
}

export interface FollowInput {
  spec: HostSpec
  /** `slurm`: the Notes key that carries the engine's job id. */
  engine: string
  job: HostJob
  command: HostCommand
  /** The job folder, shared with the engine's workers: `out`, `err`, `pid`, `rc`. */
  folder: string
  settleMs: number
  view: (knownId: string | undefined) => Promise<JobView | {error: string}>
  submit: (env: Record<string, string>) => Promise<{id: string} | {error: string}>
  cancel: (key: string) => Promise<unknown>
}

/**
 * Run one attempt as an engine's job whose folder this machine can read:
 * submit (or find the job the key already names), follow its output from
 * byte 0, and end when its exit code is written. The engine's queue time is
 * reported in Notes and not counted against the timeout; a job whose worker
 * the engine gave up on, or that vanished while it ran, is `lost`.
 */
export async function followJob(input: FollowInput): Promise<HostRun> {
  const {spec, job, command, folder, engine} = input
  const base = {timedOut: false, interrupted: false, stdout: '', stderr: '', spawnFailed: false}
  if (job.signal?.aborted) return {...base, interrupted: true}
  makeDir(dirname(job.logFile))
  const log = createWriteStream(job.logFile, {flags: 'a'})
  const out: Buffer[] = []
  const lines = lineSplitter(command.onLine)
  const stop = new AbortController()
  let interrupted = false
  let timedOut = false
  const onAbort = (): void => {
    interrupted = true
    stop.abort()
  }
  job.signal?.addEventListener('abort', onAbort, {once: true})
  let timer: NodeJS.Timeout | undefined
  const env: Record<string, string> = {...command.env}
  for (const name of spec.env) if (process.env[name] !== undefined) env[name] = process.env[name]!
  const file = (name: string): string => join(folder, name)
  const notes = (values: Record<string, string | undefined>): void => job.onNotes?.(values)

  let offset = 0
  const drain = async (): Promise<void> => {
    const handle = await open(file('out'), 'r').catch(() => undefined)
    if (!handle) return
    try {
      const buffer = Buffer.alloc(64 * 1024)
      for (;;) {
        const {bytesRead} = await handle.read(buffer, 0, buffer.length, offset)
        if (bytesRead === 0) break
        const chunk = Buffer.from(buffer.subarray(0, bytesRead))
        offset += bytesRead
        out.push(chunk)
        log.write(chunk)
        lines.push(chunk)
      }
    } finally {
      await handle.close()
    }
  }
  let attached = false
  const finish = async (result: Partial<HostRun>): Promise<HostRun> => {
    if (timer) clearTimeout(timer)
    job.signal?.removeEventListener('abort', onAbort)
    await drain()
    lines.end()
    const stderr = result.stderr ?? (await readFile(file('err'), 'utf8').catch(() => ''))
    if (stderr) log.write(stderr)
    await new Promise((resolve) => log.end(resolve))
    return {...base, stdout: Buffer.concat(out).toString('utf8'), attached, ...result, stderr}
  }

  let engineId: string | undefined
  let submitted = false
  let submits = 0
  let submitError: string | undefined
  let needSubmit = !job.reattach
  let queuedAt: number | undefined
  let queuedNoted = false
  let startedAt: number | undefined
  let goneSince: number | undefined
  let endedSince: number | undefined
  let lastContact = Date.now()
  // A new attempt's Notes start clean of the last one's engine details; a rerun keeps its job's.
  if (!job.reattach) notes({[engine]: undefined, queued: undefined})

  for (let wait = 100; ; ) {
    if (stop.signal.aborted) {
      // After a lost lock the job may be the new owner's: stop following it, leave it running.
      if (!DetachRequest.asked(job.signal)) await input.cancel(job.key)
      return finish({interrupted, timedOut})
    }
    if (needSubmit) {
      needSubmit = false
      submitted = true
      submits++
      const answer = await input.submit(env)
      // Queued from the submit on, until it starts; a rerun knows only what it sees queued.
      queuedAt ??= Date.now()
      if ('id' in answer) {
        engineId = answer.id
        notes({[engine]: engineId})
      } else submitError = answer.error
      // Either way the queue is asked next: a submit whose answer was lost is there under its key.
      goneSince = Date.now()
    }
    const seen = await input.view(engineId)
    const now = Date.now()
    if ('error' in seen) {
      if (now - lastContact > spec.leaseMs) return finish({lost: true, error: `host lost: ${spec.name} (${seen.error})`})
    } else {
      lastContact = now
      if (seen.id !== undefined && seen.id !== engineId) {
        // Found under its key, not from a submit's answer: a rerun, or an answer that was lost.
        attached = true
        engineId = seen.id
        notes({[engine]: engineId})
      }
      await drain()
      const ran = await exists(file('pid'))
      const started = seen.phase === 'running' || ran
      if (seen.phase === 'queued' && !queuedNoted && startedAt === undefined) {
        queuedNoted = true
        queuedAt ??= now
        notes({queued: `since ${new Date(now).toISOString().slice(11, 19)}Z`})
      }
      if (started && startedAt === undefined) {
        startedAt = now
        if (queuedAt !== undefined) notes({queued: formatDuration(now - queuedAt)})
        // --agent-timeout counts from the start: time in the engine's queue is not the agent's.
        if (job.timeoutMs) timer = setTimeout(() => ((timedOut = true), stop.abort()), job.timeoutMs)
      }
      if (seen.phase === 'lost') return finish({lost: true, error: `host lost: ${spec.name} (${engine} job ${engineId}: ${seen.detail})`})
      if (await exists(file('rc'))) {
        const rc = Number((await readFile(file('rc'), 'utf8')).trim())
        return finish({exitCode: Number.isInteger(rc) ? rc : 125})
      }
      if (seen.phase === 'ended' && ran) {
        endedSince ??= now
        if (now - endedSince > input.settleMs) return finish({signal: 'SIGKILL', error: `${engine} ended the job ${engineId} (${seen.detail}) before it wrote its exit code`})
      } else endedSince = undefined
      // Ended without ever running here (cancelled by a Ctrl-C, which also removed its folder): as if unknown.
      if (seen.phase === undefined || (seen.phase === 'ended' && !ran)) {
        if (ran) {
          // It ran, and neither the engine nor the folder knows how it ended.
          goneSince ??= now
          if (now - goneSince > input.settleMs) return finish({lost: true, error: `host lost: ${spec.name} (the job ${job.key} vanished from ${engine} while it ran)`})
        } else if (!submitted || (goneSince !== undefined && now - goneSince > input.settleMs)) {
          // Never submitted (a rerun of a launch that died before its submit), or the submit never arrived: once more, same key.
          if (submits >= 3) return finish({spawnFailed: true, error: `${spec.name}: could not submit ${job.key}: ${submitError ?? 'the job never appeared in the queue'}`})
          needSubmit = true
          continue
        }
      } else goneSince = undefined
    }
    await sleep(wait, undefined, {signal: stop.signal}).catch(() => undefined)
    wait = Math.min(Math.round(wait * 1.5), 1000)
  }
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(() => true, () => false)
}
