import {createHash} from 'node:crypto'
import {readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {V1Job} from '@kubernetes/client-node'
import {fetchResult} from '../fetch-result.js'
import type {Collected, Host, HostJob} from '../host.js'
import type {HostCommand} from '../../process/process-types.js'
import type {HostSpec} from '../host-spec.js'
import {jobArchive} from '../job-archive.js'
import {kubernetesClient, messageOf, statusOf, type KubernetesClient} from './kubernetes-client.js'
import {kubernetesName, labelValue} from './kubernetes-name.js'
import {podScript} from './kubernetes-pod-script.js'
import {runPod} from './kubernetes-run.js'

/** A ConfigMap holds at most 1 MiB: the job's archive (base bundle included) must fit. */
const maxArchiveBytes = 1_000_000
const managed = {'app.kubernetes.io/managed-by': 'mdplan'}

/**
 * A Kubernetes cluster: one Job per attempt, named by its key (a second
 * create is a 409, so a repeat attaches), with Kubernetes' own retries off
 * (`backoffLimit: 0`, `restartPolicy: Never`, `podReplacementPolicy:
 * Failed`). Code goes in as a ConfigMap mounted into the pod; output and work
 * come back through the pod's log (the result bundle after a marker).
 * Credentials: the host's `env:` names become a Secret per attempt, and
 * `secret:` names one the user keeps; both reach the agent by `envFrom`.
 *
 * No `ttlSecondsAfterFinished`: the pod's log is the only copy of a result,
 * and with a TTL a coordinator away longer than it found the Job gone and
 * submitted the attempt again (the agent ran twice). A Job lives until the
 * sweep of a run that has recorded its outcome in the plan deletes it.
 */
export function kubernetesHost(spec: HostSpec): Host {
  let client: KubernetesClient | {error: string} | undefined
  const connect = (): KubernetesClient | {error: string} => (client ??= kubernetesClient(spec))
  /** Result bundles read from finished pods' logs, by key, until collected. */
  const results = new Map<string, Buffer>()

  const submit = async (c: KubernetesClient, job: HostJob, command: HostCommand): Promise<{error: string} | {created: boolean}> => {
    const name = kubernetesName(job.key)
    const archive = await jobArchive(job, command, {})
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

  return {
    spec,

    async run(job, command) {
      const c = connect()
      if ('error' in c) return {timedOut: false, interrupted: false, stdout: '', stderr: '', spawnFailed: true, error: `${spec.name}: ${c.error}`}
      return runPod({
        spec,
        client: c,
        job,
        command,
        name: kubernetesName(job.key),
        marker: markerOf(job.key),
        submit: () => submit(c, job, command),
        cancel: (key) => this.cancel([key]),
        onResult: (bundle) => results.set(job.key, bundle)
      })
    },

    async collect({key, root, branch, base}): Promise<Collected> {
      const bundle = results.get(key)
      if (bundle === undefined) return {ok: false, reason: `${spec.name}: the job ${key} has no result`}
      if (bundle.length === 0) return {ok: true}
      const file = join(tmpdir(), `${key}-${process.pid}.bundle`)
      try {
        await writeFile(file, bundle)
        return await fetchResult({file, key, root, branch, base})
      } finally {
        results.delete(key)
        await rm(file, {force: true})
      }
    },

    async cancel(keys) {
      const c = connect()
      if ('error' in c || keys.length === 0) return
      const gone = (error: unknown): void => {
        if (statusOf(error) !== 404) throw error
      }
      await Promise.all(
        keys.map(async (key) => {
          const name = kubernetesName(key)
          const namespace = c.namespace
          // Background: the pod is ended and removed with its Job.
          await c.batch.deleteNamespacedJob({name, namespace, propagationPolicy: 'Background'}).catch(gone).catch(() => undefined)
          await c.core.deleteNamespacedConfigMap({name: `${name}-in`, namespace}).catch(gone).catch(() => undefined)
          await c.core.deleteNamespacedSecret({name: `${name}-env`, namespace}).catch(gone).catch(() => undefined)
        })
      )
    },

    async list(prefix) {
      const c = connect()
      if ('error' in c) return undefined
      try {
        const jobs = await c.batch.listNamespacedJob({namespace: c.namespace, labelSelector: 'app.kubernetes.io/managed-by=mdplan'})
        return jobs.items.map((item) => item.metadata?.annotations?.['mdplan/key'] ?? '').filter((key) => key.startsWith(prefix))
      } catch {
        return undefined
      }
    },

    async preflight() {
      const name = `host ${spec.name} (kubernetes)`
      const c = connect()
      if ('error' in c) return [`${name}: ${c.error}`]
      const problems: string[] = []
      for (const [group, resource] of [['batch', 'jobs'], ['', 'configmaps'], ...(spec.env.length > 0 ? [['', 'secrets']] : [])] as const) {
        try {
          const review = await c.auth.createSelfSubjectAccessReview({body: {spec: {resourceAttributes: {namespace: c.namespace, verb: 'create', group, resource}}}})
          if (!review.status?.allowed) problems.push(`${name}: may not create ${resource} in namespace ${c.namespace}; ask for a Role that allows jobs, configmaps, secrets and pods/log there, or set \`namespace:\``)
        } catch (error) {
          return [`${name}: the API server did not answer (${messageOf(error)}); check that \`${c.label} get jobs\` works`]
        }
      }
      return problems
    },

    close: async () => undefined
  }
}

/** The line that ends an attempt's own output in its pod's log: the same for a rerun reading it again. */
function markerOf(key: string): string {
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
