import {createWriteStream} from 'node:fs'
import {dirname} from 'node:path'
import {Writable} from 'node:stream'
import {setTimeout as sleep} from 'node:timers/promises'
import type {V1Pod} from '@kubernetes/client-node'
import {formatDuration} from '../../util/format-duration.js'
import {DetachRequest} from '../detach-request.js'
import type {HostJob, HostRun} from '../host.js'
import type {HostCommand} from '../../process/process-types.js'
import type {HostSpec} from '../host-spec.js'
import {messageOf, statusOf, type KubernetesClient} from './kubernetes-client.js'
import {makeDir} from '../../util/make-dir.js'

export interface PodRunInput {
  spec: HostSpec
  client: KubernetesClient
  job: HostJob
  command: HostCommand
  /** The Job's name (from the key). */
  name: string
  marker: string
  submit: () => Promise<{error: string} | {created: boolean}>
  cancel: (key: string) => Promise<unknown>
  onResult: (bundle: Buffer) => void
}

/**
 * One attempt as a Kubernetes Job: create it (or find it: 409), wait while
 * its pod is pending (queue time, not counted against the timeout), follow
 * the pod's log from the start, and end at the trailer the pod script
 * writes (exit code, result bundle). A pod that failed or was evicted, or a
 * Job that vanished, before the trailer came is a lost worker.
 */
export async function runPod(input: PodRunInput): Promise<HostRun> {
  const {spec, client, job, command, name, marker} = input
  const {namespace} = client
  const base = {timedOut: false, interrupted: false, stdout: '', stderr: '', spawnFailed: false}
  if (job.signal?.aborted) return {...base, interrupted: true}
  makeDir(dirname(job.logFile))
  const log = createWriteStream(job.logFile, {flags: 'a'})
  const stop = new AbortController()
  let interrupted = false
  let timedOut = false
  const onAbort = (): void => {
    interrupted = true
    stop.abort()
  }
  job.signal?.addEventListener('abort', onAbort, {once: true})
  let timer: NodeJS.Timeout | undefined
  const notes = (values: Record<string, string | undefined>): void => job.onNotes?.(values)
  const trailer = trailerReader(marker, command.onLine, (chunk) => log.write(chunk))
  let attached = false
  const finish = async (result: Partial<HostRun>): Promise<HostRun> => {
    if (timer) clearTimeout(timer)
    job.signal?.removeEventListener('abort', onAbort)
    trailer.end()
    if (trailer.stderr) log.write(trailer.stderr)
    await new Promise((resolve) => log.end(resolve))
    return {...base, stdout: trailer.stdout(), stderr: trailer.stderr, attached, ...result}
  }
  const lost = (why: string): Promise<HostRun> => finish({lost: true, error: `host lost: ${spec.name} (${why})`})

  if (!job.reattach) notes({kubernetes: undefined, queued: undefined})
  let exists = false
  if (job.reattach) {
    exists = await client.batch.readNamespacedJob({name, namespace}).then(() => true, () => false)
    attached = exists
  }
  const submittedAt = Date.now()
  for (let tries = 0; !exists; tries++) {
    const answer = await input.submit()
    if ('created' in answer) {
      attached ||= !answer.created
      break
    }
    // An answer lost on the way: the name makes trying again safe (a 409 if it had arrived).
    if (tries >= 2) return finish({spawnFailed: true, error: `${spec.name}: could not create the Job ${name}: ${answer.error}`})
    await sleep(500)
  }
  notes({kubernetes: `${namespace}/${name}`})

  let offset = 0
  let startedAt: number | undefined
  let queuedNoted = false
  let lastContact = Date.now()
  for (let wait = 100; ; ) {
    if (stop.signal.aborted) {
      // After a lost lock the job may be the new owner's: stop following it, leave it running.
      if (!DetachRequest.asked(job.signal)) await input.cancel(job.key)
      return finish({interrupted, timedOut})
    }
    let pod: V1Pod | undefined
    let failed: string | undefined
    let complete = false
    try {
      const current = await client.batch.readNamespacedJob({name, namespace})
      failed = current.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True')?.reason
      complete = (current.status?.succeeded ?? 0) > 0 || current.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') === true
      const pods = await client.core.listNamespacedPod({namespace, labelSelector: `job-name=${name}`})
      pod = pods.items.sort((a, b) => String(a.metadata?.creationTimestamp ?? '').localeCompare(String(b.metadata?.creationTimestamp ?? ''))).at(-1)
      lastContact = Date.now()
    } catch (error) {
      if (statusOf(error) === 404) return lost(`the Job ${name} vanished`)
      if (Date.now() - lastContact > spec.leaseMs) return lost(messageOf(error))
    }
    const phase = pod?.status?.phase
    if (pod && phase !== 'Pending') {
      if (startedAt === undefined) {
        startedAt = Date.now()
        if (queuedNoted || !job.reattach) notes({queued: formatDuration(startedAt - submittedAt)})
        // --agent-timeout counts from the start: time waiting for a node is not the agent's.
        if (job.timeoutMs) timer = setTimeout(() => ((timedOut = true), stop.abort()), job.timeoutMs)
      }
      offset = await follow(client, namespace, pod.metadata!.name!, offset, trailer.push, stop.signal)
      if (trailer.done()) {
        input.onResult(trailer.bundle())
        return finish({exitCode: trailer.exitCode()})
      }
      if (stop.signal.aborted) continue
      // The log ended before the trailer: the pod is gone or still running (a dropped stream is followed again).
      const reason = pod.status?.reason ?? failed
      if (phase === 'Failed' || failed) return lost(`pod ${pod.metadata?.name} ${reason ?? 'failed'}`)
    } else if (failed) return lost(`the Job ${name} failed: ${failed}`)
    // Finished, but its pod was removed (the cluster's garbage collection of finished pods): the result went with
    // its log. Said, instead of waiting for a pod that never comes.
    else if (complete && !pod) return lost(`the Job ${name} finished but its pod, whose log held the result, is gone`)
    else if (!queuedNoted) {
      queuedNoted = true
      notes({queued: `since ${new Date().toISOString().slice(11, 19)}Z`})
    }
    await sleep(wait, undefined, {signal: stop.signal}).catch(() => undefined)
    wait = Math.min(Math.round(wait * 1.5), 1000)
  }
}

/** Follow a pod's log until it ends; bytes before `offset` were seen already. Returns the new offset. */
async function follow(client: KubernetesClient, namespace: string, pod: string, offset: number, push: (chunk: Buffer) => void, signal: AbortSignal): Promise<number> {
  // An abort that came while the pod was looked up: its event has fired already.
  if (signal.aborted) return offset
  let seen = 0
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      const fresh = seen + chunk.length > offset ? chunk.subarray(Math.max(0, offset - seen)) : undefined
      seen += chunk.length
      if (fresh && fresh.length > 0) push(Buffer.from(fresh))
      callback()
    }
  })
  await new Promise<void>((resolve) => {
    let controller: AbortController | undefined
    const onAbort = (): void => {
      controller?.abort()
      done()
    }
    const done = (): void => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }
    signal.addEventListener('abort', onAbort, {once: true})
    // The client (1.4) pipes the response into the sink and never calls a `done` callback: the sink's end is the log's end.
    sink.on('finish', done)
    sink.on('error', done)
    new client.k8s.Log(client.config)
      .log(namespace, pod, 'agent', sink, {follow: true})
      .then((made) => {
        controller = made
        if (signal.aborted) made.abort()
      }, done)
  })
  return Math.max(offset, seen)
}

/** Splits a pod's log into the agent's output (lines to the runner) and the trailer after `marker`. */
function trailerReader(marker: string, onLine: ((line: string) => void) | undefined, write: (chunk: Buffer) => void) {
  const out: Buffer[] = []
  let partial = Buffer.alloc(0)
  let mode: 'output' | 'bundle' | 'after' = 'output'
  let exitCode: number | undefined
  const bundle: string[] = []
  let stderr = ''
  const line = (bytes: Buffer): void => {
    const text = bytes.toString('utf8')
    if (mode === 'output' && text.startsWith(`${marker} rc `)) {
      exitCode = Number(text.slice(marker.length + 4))
      mode = 'bundle'
    } else if (mode === 'output') {
      const withNewline = Buffer.concat([bytes, Buffer.from('\n')])
      out.push(withNewline)
      write(withNewline)
      try {
        onLine?.(text.endsWith('\r') ? text.slice(0, -1) : text)
      } catch {
        // A parser bug must not take the agent's output (or mdplan) down with it.
      }
    } else if (mode === 'bundle' && text === `${marker} end`) mode = 'after'
    else if (mode === 'bundle') bundle.push(text)
    else stderr += `${text}\n`
  }
  return {
    push(chunk: Buffer) {
      let data = Buffer.concat([partial, chunk])
      for (let newline = data.indexOf(10); newline !== -1; newline = data.indexOf(10)) {
        line(data.subarray(0, newline))
        data = data.subarray(newline + 1)
      }
      partial = Buffer.from(data)
    },
    end() {
      if (partial.length > 0) line(partial)
      partial = Buffer.alloc(0)
    },
    done: () => mode === 'after',
    exitCode: () => (Number.isInteger(exitCode) ? exitCode! : 125),
    bundle: () => Buffer.from(bundle.join(''), 'base64'),
    stdout: () => Buffer.concat(out).toString('utf8'),
    get stderr() {
      return stderr
    }
  }
}
