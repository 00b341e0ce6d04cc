import {loginCheckLimitMs} from '../../runners/login-check-limit.js'
import type {HostBases} from '../host-bases.js'
import type {HostSpec} from '../host-spec.js'
import {preflightScript} from '../preflight-script.js'
import type {AuthCheck, HostSaid} from '../remote-auth.js'
import type {SshTransport} from './ssh-transport.js'

/** Below this much free space in a host's job folder, preflight says so. */
const minFreeKb = 512 * 1024

/**
 * An ssh host's checks in one round trip (preflight-script.ts): reachable, the job folder writable, the
 * executables there, the runners' logins, the free space; and the bases its cache holds, learnt.
 */
export async function sshPreflight(host: {spec: HostSpec; transport: SshTransport; dir: string; bases: HostBases}, executables: readonly string[], auth: readonly AuthCheck[]): Promise<string[]> {
  const {spec, transport, dir} = host
  const name = `host ${spec.name} (${transport.label})`
  const connected = await transport.connect()
  if (!connected.ok) return [`${name}: unreachable over ssh: ${connected.reason}; check that \`${transport.probe}\` works without a password prompt`]
  const limitMs = loginCheckLimitMs()
  const answer = await transport.exec(preflightScript, [dir, String(Math.ceil(limitMs / 1000)), ...executables, '--', ...auth.flatMap((check) => check.words)])
  if (answer.exitCode !== 0) {
    const said = String(answer.stderr).trim().split('\n').at(-1)
    return [`${name}: the checks could not run (${said || (answer.exitCode === undefined ? 'ssh was stopped' : `ssh exited with ${answer.exitCode}`)}); check that \`${transport.probe}\` works`]
  }
  const problems: string[] = []
  const held: string[] = []
  const said = auth.map((): HostSaid & {facts: string[]; slow?: boolean} => ({facts: []}))
  for (const line of String(answer.stdout).split('\n')) {
    const [what, value] = [line.slice(0, line.indexOf(' ')), line.slice(line.indexOf(' ') + 1)]
    if (what === 'missing') problems.push(`${name}: \`${value}\` is not installed there; install it on ${transport.label} or run these agents on another host`)
    if (what === 'unwritable') problems.push(`${name}: cannot create the job folder ${value}; set \`dir:\` for the host to a writable folder`)
    const [index, ...rest] = value.split(' ')
    const check = said[Number(index)]
    if (what === 'auth' && check) check.answer = {exitCode: Number(rest[0]), stdout: decode(rest[1]), stderr: decode(rest[2])}
    if (what === 'fact' && check) check.facts.push(rest.join(' '))
    if (what === 'authslow' && check) check.slow = true
    if (what === 'base' && /^[0-9a-f]{40}$/.test(value)) held.push(value)
    if (what === 'disk' && Number(value) > 0 && Number(value) < minFreeKb) problems.push(`${name}: only ${Math.round(Number(value) / 1024)} MB free under ${dir}; free some space or set \`dir:\` elsewhere`)
  }
  auth.forEach((check, index) => {
    // A login check that never answered: nothing launches unconfirmed.
    const problem = said[index]!.slow ? check.slow(limitMs) : check.verdict(said[index]!)
    if (problem) problems.push(`${name}: ${problem}`)
  })
  host.bases.learn(held)
  return problems
}

function decode(base64: string | undefined): string {
  return Buffer.from(base64 ?? '', 'base64').toString('utf8')
}
