import {setTimeout as sleep} from 'node:timers/promises'
import type {V1Pod} from '@kubernetes/client-node'
import type {HostJob, HostRun} from '../host.js'
import type {HostCommand} from '../../process/process-types.js'
import type {HostSpec} from '../host-spec.js'
import {jobAttempt, type JobAttempt} from '../job-attempt.js'
import {messageOf, statusOf, type KubernetesClient} from './kubernetes-client.js'
import {followLog, TrailerReader} from './kubernetes-log.js'

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
  /** Where the result bundle goes as it comes home (from the end of the pod's log). */
  resultFile: string
}

/** A container waiting for one of these is on its way; waiting for anything else (a bad image), it is stuck. */
const starting = new Set(['ContainerCreating', 'PodInitializing'])

/** What one look at the Job and its newest pod found. */
type Seen = {pod?: V1Pod; failed?: string; complete: boolean} | {gone: true} | {error: string}


/**
 * One attempt as a Kubernetes Job: create it (or find it: 409), wait while
 * its pod is pending (queue time, not counted against the timeout), follow
 * the pod's log from the start, and end at the trailer the pod script
 * writes (exit code, result bundle). A pod that failed or was evicted, or a
 * Job that vanished, before the trailer came is a lost worker; a Job gone
 * before its pod started, or a pod that cannot start (its image), never
 * started its agent.
 */
export async function runPod(input: PodRunInput): Promise<HostRun> {
  const {spec, client, job, name} = input
  // The host's own variables reach the pod from a Secret, never through the frame.
  const frame = jobAttempt(job, input.command, {host: spec, timerNow: false})
  if (frame.stop.aborted) return frame.finish({})
  if (!job.reattach) frame.notes({kubernetes: undefined, queued: undefined})
  const failed = await create(input, frame)
  if (failed) return failed
  frame.notes({kubernetes: `${client.namespace}/${name}`})
  const trailer = new TrailerReader(input.marker, frame, input.resultFile)
  frame.onFinish(() => trailer.end())
  const state = {offset: 0, ran: false}
  for (let wait = 100; ; ) {
    // After a lost lock the job may be the new owner's: stop following it, leave it running.
    if (frame.stop.aborted) return frame.stopped({cancel: async () => void (await input.cancel(job.key))})
    const end = await step(input, frame, trailer, state, await look(client, name))
    if (end) return end
    await frame.pause(wait)
    wait = Math.min(Math.round(wait * 1.5), 1000)
  }
}

/** Create the Job, or find it; the attempt's end when it could not be. */
async function create(input: PodRunInput, frame: JobAttempt): Promise<HostRun | undefined> {
  const {client, job, name, spec} = input
  if (job.reattach && (await client.batch.readNamespacedJob({name, namespace: client.namespace}).then(() => true, () => false))) {
    frame.attached = true
    return undefined
  }
  frame.submitted()
  for (let tries = 0; ; tries++) {
    const answer = await input.submit()
    if ('created' in answer) {
      frame.attached ||= !answer.created
      return undefined
    }
    // An answer lost on the way: the name makes trying again safe (a 409 if it had arrived).
    if (tries >= 2) return frame.finish({spawnFailed: true, error: `${spec.name}: could not create the Job ${name}: ${answer.error}`})
    await sleep(500)
  }
}

async function look(client: KubernetesClient, name: string): Promise<Seen> {
  const {namespace} = client
  try {
    const current = await client.batch.readNamespacedJob({name, namespace})
    const failed = current.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True')?.reason
    const complete = (current.status?.succeeded ?? 0) > 0 || current.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') === true
    const pods = await client.core.listNamespacedPod({namespace, labelSelector: `job-name=${name}`})
    const pod = pods.items.sort((a, b) => String(a.metadata?.creationTimestamp ?? '').localeCompare(String(b.metadata?.creationTimestamp ?? ''))).at(-1)
    return {pod, failed, complete}
  } catch (error) {
    return statusOf(error) === 404 ? {gone: true} : {error: messageOf(error)}
  }
}

/** What a look means: the attempt's end, or nothing yet. */
async function step(input: PodRunInput, frame: JobAttempt, trailer: TrailerReader, state: {offset: number; ran: boolean}, seen: Seen): Promise<HostRun | undefined> {
  const {name, job, client} = input
  if ('error' in seen) return frame.silent ? frame.lost(seen.error) : undefined
  if ('gone' in seen) {
    if (state.ran) return frame.lost(`the Job ${name} vanished`)
    // Deleted before its pod ever ran (by hand, or by a cluster's clean-up): its agent never started.
    await input.cancel(job.key)
    return frame.notStarted(`the Job ${name} was deleted before its pod started`)
  }
  frame.heard()
  const {pod, failed, complete} = seen
  const phase = pod?.status?.phase
  if (pod && phase !== 'Pending') {
    state.ran = true
    frame.running()
    state.offset = await followLog(client, pod.metadata!.name!, state.offset, trailer.push, frame.stop)
    if (trailer.done()) return frame.finish({exitCode: trailer.exitCode()})
    if (frame.stop.aborted) return undefined
    // The log ended before the trailer: the pod is gone or still running (a dropped stream is followed again).
    if (phase === 'Failed' || failed) return frame.lost(`pod ${pod.metadata?.name} ${pod.status?.reason ?? failed ?? 'failed'}`)
    // Finished, or a phase the node could not tell, and no result in its log: not for ever.
    if (frame.stuck(phase === 'Running' ? undefined : `${phase}`)) return frame.finish({signal: 'SIGKILL', error: `the pod ${pod.metadata?.name} stayed ${phase} without its result`})
    return undefined
  }
  if (failed) return frame.lost(`the Job ${name} failed: ${failed}`)
  // Finished, but its pod was removed (the cluster's garbage collection of finished pods): the result went with
  // its log. Said, instead of waiting for a pod that never comes.
  if (complete && !pod) return frame.lost(`the Job ${name} finished but its pod, whose log held the result, is gone`)
  const waiting = pod?.status?.containerStatuses?.[0]?.state?.waiting?.reason
  if (frame.stuck(waiting !== undefined && !starting.has(waiting) ? waiting : undefined)) {
    // Its image cannot be pulled, its configuration refused: it would wait for ever, its agent never started.
    await input.cancel(job.key)
    return frame.notStarted(`the pod of the Job ${name} stayed ${waiting} and never started`)
  }
  frame.queued()
  return undefined
}
