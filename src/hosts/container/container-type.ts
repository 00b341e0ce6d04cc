import {oneOf, text} from '../host-fields.js'
import type {HostType} from '../host-type.js'
import {containerHost} from './container.js'

/** `{type: container, image: localhost/agent:1, engine: podman, dir}`: a container per attempt, with podman or docker. */
export const containerType: HostType = {
  fields: {
    image: {to: 'image', read: text},
    engine: {to: 'engine', read: oneOf('podman', 'docker')},
    dir: {to: 'dir', read: text}
  },
  check: (spec) => [!spec.image && 'a container host needs `image` (for example `localhost/agent:1`)'],
  create: (spec, context) => containerHost(spec, context)
}
