import {existsSync} from 'node:fs'
import {mkdir, rm, stat} from 'node:fs/promises'
import {join} from 'node:path'
import {fetchResult} from '../fetch-result.js'
import type {Collected, Host} from '../host.js'
import type {HostSpec} from '../host-spec.js'
import {kubernetesClient, messageOf, statusOf, type KubernetesClient} from './kubernetes-client.js'
import {kubernetesName} from './kubernetes-name.js'
import {runPod} from './kubernetes-run.js'
import {markerOf, submitPodJob} from './kubernetes-submit.js'

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
export function kubernetesHost(spec: HostSpec, scratch: string): Host {
  let client: KubernetesClient | {error: string} | undefined
  const connect = (): KubernetesClient | {error: string} => (client ??= kubernetesClient(spec))
  /** Result bundles read from finished pods' logs, by key, until collected. */
  const results = join(scratch, 'results')
  const resultFile = (key: string): string => join(results, `${key}.bundle`)

  return {
    spec,

    async run(job, command) {
      const c = connect()
      if ('error' in c) return {timedOut: false, interrupted: false, stdout: '', stderr: '', spawnFailed: true, error: `${spec.name}: ${c.error}`}
      await mkdir(results, {recursive: true})
      return runPod({
        spec,
        client: c,
        job,
        command,
        name: kubernetesName(job.key),
        marker: markerOf(job.key),
        submit: () => submitPodJob({spec, client: c, job, command, scratch}),
        cancel: (key) => this.cancel([key]),
        resultFile: resultFile(job.key)
      })
    },

    async collect({key, root, branch, base}): Promise<Collected> {
      const file = resultFile(key)
      if (!existsSync(file)) return {ok: false, reason: `${spec.name}: the job ${key} has no result`}
      try {
        if ((await stat(file)).size === 0) return {ok: true}
        return await fetchResult({file, key, root, branch, base})
      } finally {
        await rm(file, {force: true})
      }
    },

    async cancel(keys) {
      await Promise.all(keys.flatMap((key) => [rm(resultFile(key), {force: true}), rm(`${resultFile(key)}.part`, {force: true})]))
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
      const c = connect()
      return 'error' in c ? [`host ${spec.name} (kubernetes): ${c.error}`] : kubernetesPreflight(spec, c)
    },

    close: async () => undefined
  }
}

/** May this cluster's namespace take Jobs, ConfigMaps (and Secrets, when the host passes variables)? One line per refusal. */
async function kubernetesPreflight(spec: HostSpec, c: KubernetesClient): Promise<string[]> {
  const name = `host ${spec.name} (kubernetes)`
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
}
