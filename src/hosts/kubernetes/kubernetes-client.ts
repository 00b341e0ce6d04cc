import {createRequire} from 'node:module'
import {fileURLToPath} from 'node:url'
import type * as K8s from '@kubernetes/client-node'
import type {HostSpec} from '../host-spec.js'
import {packageRoot} from '../../package-root.js'
import {installAdvice as installAdviceFor} from '../../util/install-advice.js'
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

/** `require` as mdplan's own code does it (tests hand in one that fails). */
export type ModuleLoader = (id: string) => unknown

const clientPackage = '@kubernetes/client-node'

/**
 * The official client (`@kubernetes/client-node` 1.x; 2.x needs Node 22): an
 * optional peer dependency, not installed with mdplan (about 50 MB that most
 * plans never use). Loaded only when a plan has a kubernetes host, from where
 * Node resolves packages for mdplan itself: its own `node_modules`, then the
 * folders above it (so beside a global mdplan). Not `import()`: the bundled
 * CLI is CommonJS run through vm.Script; Node 20.19+ can require an ES module.
 */
export function loadKubernetes(load: ModuleLoader = createRequire(import.meta.url), root: string = fileURLToPath(packageRoot)): typeof K8s | {error: string} {
  try {
    return load(clientPackage) as typeof K8s
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0]! : String(error)
    const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined
    if (code === 'MODULE_NOT_FOUND' && message.includes(`'${clientPackage}'`)) {
      return {error: `the Kubernetes client (${clientPackage} 1.x) is not installed: mdplan leaves it out unless a kubernetes host needs it; ${installAdvice(root)}`}
    }
    return {error: `could not load ${clientPackage} (${message}): Kubernetes hosts need Node 20.19 or newer; on one, reinstall the client: ${installAdvice(root)}`}
  }
}

/** The command that puts the client where mdplan (installed in `root`) looks for it. */
export function installAdvice(root: string): string {
  return installAdviceFor(root, [`${clientPackage}@1`])
}

/**
 * A client for the host's cluster. The user's kubeconfig (`KUBECONFIG`, else
 * `~/.kube/config`, else in-cluster) and the host's `context:` pick the cluster.
 */
export function kubernetesClient(spec: HostSpec): KubernetesClient | {error: string} {
  if (!loaded) {
    const module = loadKubernetes()
    if ('error' in module) return module
    loaded = module
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
