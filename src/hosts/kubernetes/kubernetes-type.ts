import {matching, positiveNumber, text} from '../host-fields.js'
import type {HostType} from '../host-type.js'
import {kubernetesHost} from './kubernetes-host.js'

const serviceAccount = {to: 'serviceAccount', read: text} as const

/** `{type: kubernetes, image, namespace, context, service_account, secret, cpus, memory}`: a Job per attempt. */
export const kubernetesType: HostType = {
  fields: {
    image: {to: 'image', read: text},
    namespace: {to: 'namespace', read: matching(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'must be a Kubernetes name (lowercase letters, digits and `-`)')},
    context: {to: 'context', read: text},
    service_account: serviceAccount,
    serviceaccount: serviceAccount,
    secret: {to: 'secret', read: matching(/^[a-z0-9]([-.a-z0-9]{0,251}[a-z0-9])?$/, 'must name a Kubernetes Secret (lowercase letters, digits, `-` and `.`)')},
    cpus: {to: 'cpus', read: positiveNumber},
    memory: {to: 'memory', read: text}
  },
  check: (spec) => [!spec.image && "a kubernetes host needs `image`: one with the agent's CLI and git (for example `ghcr.io/acme/agent:1`)"],
  create: (spec, context) => kubernetesHost(spec, context.scratch)
}
