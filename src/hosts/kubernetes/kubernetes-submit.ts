import {createHash} from 'node:crypto'
import {readFile} from 'node:fs/promises'
import type {V1Job} from '@kubernetes/client-node'
import type {HostJob} from '../host.js'
import type {HostCommand} from '../../process/process-types.js'
import type {HostSpec} from '../host-spec.js'
import {jobArchive} from '../job-archive.js'
import {messageOf, statusOf, type KubernetesClient} from './kubernetes-client.js'
import {kubernetesName, labelValue} from './kubernetes-name.js'
import {podScript} from './kubernetes-pod-script.js'

/** A ConfigMap holds at most 1 MiB: the job's archive (base bundle included) must fit. */
const maxArchiveBytes = 1_000_000
const managed = {'app.kubernetes.io/managed-by': 'mdplan'}

/**
 * Create the attempt's Job: its archive as a ConfigMap (`<name>-in`), the host's `env:` as a Secret
 * (`<name>-env`), then the Job; a 409 on the Job is the Job a submit before made (`created: false`).
 */
export async function submitPodJob({spec, client: c, job, command, scratch}: {spec: HostSpec; client: KubernetesClient; job: HostJob; command: HostCommand; scratch: string}): Promise<{error: string} | {created: boolean}> {
  const name = kubernetesName(job.key)
  const archive = await jobArchive(job, command, {}, 'full', scratch)
  if ('error' in archive) return archive
  let tar: Buffer
  try {
    tar = await readFile(archive.file)
  } finally {
    await archive.dispose()
  }
  if (tar.length > maxArchiveBytes) return {error: `the job's code (${Math.round(tar.length / 1024)} KiB as a git bundle) is over a ConfigMap's 1 MiB; run these agents on an ssh or slurm host`}
  const [, slug = '', agent = ''] = job.git!.branch.split('/')
  const labels = {...managed, 'mdplan/plan': labelValue(slug), 'mdplan/agent': labelValue(agent)}
  const metadata = {name, labels, annotations: {'mdplan/key': job.key}}
  const ignore409 = (error: unknown): void => {
    if (statusOf(error) !== 409) throw error
  }
  try {
    await c.core.createNamespacedConfigMap({namespace: c.namespace, body: {metadata: {...metadata, name: `${name}-in`}, binaryData: {'job.tar': tar.toString('base64')}}}).catch(ignore409)
    const secrets: Record<string, string> = {}
    for (const variable of spec.env) if (process.env[variable] !== undefined) secrets[variable] = process.env[variable]!
    if (Object.keys(secrets).length > 0) await c.core.createNamespacedSecret({namespace: c.namespace, body: {metadata: {...metadata, name: `${name}-env`}, stringData: secrets}}).catch(ignore409)
    const body = jobManifest(spec, name, metadata, command, markerOf(job.key), Object.keys(secrets).length > 0)
    await c.batch.createNamespacedJob({namespace: c.namespace, body})
    return {created: true}
  } catch (error) {
    if (statusOf(error) === 409) return {created: false}
    return {error: messageOf(error)}
  }
}

/** The line that ends an attempt's own output in its pod's log: the same for a rerun reading it again. */
export function markerOf(key: string): string {
  return `mdplan-result-${createHash('sha256').update(`marker:${key}`).digest('hex').slice(0, 16)}`
}

function jobManifest(spec: HostSpec, name: string, metadata: V1Job['metadata'], command: HostCommand, marker: string, ownSecret: boolean): V1Job {
  const envFrom = [...(ownSecret ? [{secretRef: {name: `${name}-env`}}] : []), ...(spec.secret ? [{secretRef: {name: spec.secret}}] : [])]
  const requests: Record<string, string> = {}
  if (spec.cpus) requests.cpu = String(spec.cpus)
  if (spec.memory) requests.memory = spec.memory
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata,
    spec: {
      backoffLimit: 0,
      podReplacementPolicy: 'Failed',
      template: {
        metadata: {labels: metadata?.labels},
        spec: {
          restartPolicy: 'Never',
          ...(spec.serviceAccount ? {serviceAccountName: spec.serviceAccount} : {}),
          containers: [
            {
              name: 'agent',
              image: spec.image!,
              command: ['sh', '-c', podScript, 'mdplan', marker],
              // The attempt's own variables (MDPLAN_AGENT, …): never credentials, which come from Secrets.
              env: [{name: 'MDPLAN_IN', value: '/mdplan/in'}, ...Object.entries(command.env ?? {}).map(([key, value]) => ({name: key, value}))],
              ...(envFrom.length > 0 ? {envFrom} : {}),
              ...(Object.keys(requests).length > 0 ? {resources: {requests}} : {}),
              volumeMounts: [{name: 'in', mountPath: '/mdplan/in', readOnly: true}]
            }
          ],
          volumes: [{name: 'in', configMap: {name: `${name}-in`}}]
        }
      }
    }
  }
}
