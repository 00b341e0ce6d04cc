import {createRequire} from 'node:module'
import type * as K8s from '@kubernetes/client-node'
import type {HostSpec} from '../host-spec.js'
import {shellWord} from '../../util/shell-word.js'

export interface KubernetesClient {
  k8s: typeof K8s
  config: K8s.KubeConfig
  batch: K8s.BatchV1Api
  core: K8s.CoreV1Api
  auth: K8s.AuthorizationV1Api
  namespace: string
  /** `kubectl --context X -n NS`, for messages that say what to try. */
  label: string
}

let loaded: typeof K8s | undefined

/**
 * The official client (`@kubernetes/client-node` 1.x; 2.x needs Node 22),
 * loaded only when a plan has a kubernetes host: it is large, and the CLI
 * bundle stays small without it. The user's kubeconfig (`KUBECONFIG`, else
 * `~/.kube/config`, else in-cluster) and the host's `context:` pick the cluster.
 */
export function kubernetesClient(spec: HostSpec): KubernetesClient | {error: string} {
  try {
    // Not `import()`: the bundled CLI is CommonJS run through vm.Script; Node 20.19+ can require an ES module.
    loaded ??= createRequire(import.meta.url)('@kubernetes/client-node') as typeof K8s
  } catch (error) {
    return {error: `could not load @kubernetes/client-node (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); Kubernetes hosts need Node 20.19 or newer`}
  }
  const k8s = loaded
  const config = new k8s.KubeConfig()
  try {
    config.loadFromDefault()
    if (spec.context) config.setCurrentContext(spec.context)
  } catch (error) {
    return {error: `could not read the kubeconfig: ${error instanceof Error ? error.message : String(error)}`}
  }
  if (!config.getCurrentCluster()) return {error: `no cluster in the kubeconfig${spec.context ? ` for context ${spec.context}` : ''} (KUBECONFIG=${process.env.KUBECONFIG ?? '~/.kube/config'})`}
  const namespace = spec.namespace ?? config.getContextObject(config.getCurrentContext())?.namespace ?? 'default'
  return {
    k8s,
    config,
    batch: config.makeApiClient(k8s.BatchV1Api),
    core: config.makeApiClient(k8s.CoreV1Api),
    auth: config.makeApiClient(k8s.AuthorizationV1Api),
    namespace,
    label: `kubectl --context ${shellWord(config.getCurrentContext())} -n ${shellWord(namespace)}`
  }
}

/** The HTTP status of a client error (409 AlreadyExists, 404 NotFound), if it has one. */
export function statusOf(error: unknown): number | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'number' ? error.code : undefined
}

export function messageOf(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'body' in error && typeof error.body === 'string') {
    try {
      const body = JSON.parse(error.body) as {message?: string}
      if (body.message) return body.message
    } catch {
      // Not a Status object: the error's own message says more.
    }
  }
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!
}
