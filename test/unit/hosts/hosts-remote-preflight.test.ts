import {describe, expect, it} from 'vitest'
import type {HostSpec} from '../../../src/hosts/host-spec.js'
import type {RemoteOutcome} from '../../../src/hosts/ssh/remote-call.js'
import {remoteHost} from '../../../src/hosts/ssh/remote-host.js'
import type {SshTransport} from '../../../src/hosts/ssh/ssh-transport.js'

/** A transport whose checks end as `outcome` says: what a host that cannot run them answers. */
function transport(outcome: RemoteOutcome): SshTransport {
  return {exec: () => Promise.resolve(outcome), connect: async () => ({ok: true}), close: async () => undefined, label: 'dev@build1', probe: 'ssh dev@build1 true'}
}

const spec: HostSpec = {name: 'build1', type: 'ssh', slots: 1, address: 'dev@build1', env: [], leaseMs: 120_000} as HostSpec

describe('an ssh host whose checks cannot run', () => {
  it('says why in the line, and what to try, even when the host said nothing', async () => {
    const silent = await remoteHost(spec, transport({exitCode: 1, stdout: '', stderr: ''}), '/nonexistent').preflight([])
    expect(silent).toEqual(['host build1 (dev@build1): the checks could not run (ssh exited with 1); check that `ssh dev@build1 true` works'])
    const said = await remoteHost(spec, transport({exitCode: 126, stdout: '', stderr: 'sh: permission denied\n'}), '/nonexistent').preflight([])
    expect(said).toEqual(['host build1 (dev@build1): the checks could not run (sh: permission denied); check that `ssh dev@build1 true` works'])
  })
})
