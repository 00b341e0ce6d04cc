import {text, wholeNumber} from '../host-fields.js'
import type {HostType} from '../host-type.js'
import {sshHost} from './ssh.js'

/** `{type: ssh, address: dev@build1, port, config, dir}`: a machine reached with the user's own OpenSSH. */
export const sshType: HostType = {
  fields: {
    address: {to: 'address', read: text},
    port: {to: 'port', read: wholeNumber},
    config: {to: 'config', read: text},
    dir: {to: 'dir', read: text}
  },
  check: (spec) => [
    !spec.address && 'an ssh host needs `address` (`user@host`, or an alias from ~/.ssh/config)',
    spec.address?.startsWith('-') && '`address` cannot start with `-`'
  ],
  create: (spec, context) => sshHost(spec, context.scratch)
}
