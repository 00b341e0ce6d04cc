import type {Host} from '../host.js'
import type {HostSpec} from '../host-spec.js'
import {remoteHost} from './remote-host.js'
import {sshTransport} from './ssh-transport.js'

/** A machine reached with the user's own OpenSSH; jobs live in `<dir>/jobs/<key>/` there (default `~/.mdplan`). */
export function sshHost(spec: HostSpec, scratch: string): Host {
  return remoteHost(spec, sshTransport(spec), scratch)
}
