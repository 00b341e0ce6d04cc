import {locate} from '../plan/locate.js'
import {fieldPoint} from '../plan/field-point.js'
import {normalizeKey} from '../plan/normalize-key.js'
import type {Agent, Diagnostic, Plan, Point} from '../plan/types.js'
import {parseDuration} from '../util/parse-duration.js'
import {defaultLeaseMs, localHostName, localHostSpec, type HostSpec} from './host-spec.js'

export interface PlanHosts {
  /** Every declared host by name, `local` included. */
  hosts: ReadonlyMap<string, HostSpec>
  /** Where an agent may run: its own `host` field, else `--host`, else the front matter's `host:`, else local. */
  poolOf: (agentId: string) => readonly string[]
  /** The same, read from a definition (an agent edited or added while a run goes on): its names as written. */
  poolFor: (agent: Agent) => readonly string[]
  /** Why a definition's `host` cannot be placed among these hosts (a name not declared, an empty field), or undefined. */
  unplaceable: (agent: Agent) => string | undefined
  diagnostics: Diagnostic[]
}

/**
 * Read `hosts:` and `host:` from the front matter and each agent's `host`
 * field; `cliHost` (`mdplan run --host NAME`) beats the front matter's
 * default but not an agent's own field. Every problem names its line.
 */
export function readHosts(plan: Plan, cliHost?: string): PlanHosts {
  const diagnostics: Diagnostic[] = []
  const at = frontMatterFinder(plan)
  const problem = (reason: string, place: Point | undefined, rule = 'invalid-host'): void => {
    diagnostics.push({severity: 'error', rule, reason, file: plan.file, ...(place ? {place} : {})})
  }
  const hosts = new Map<string, HostSpec>([[localHostName, localHostSpec]])
  const raw = entry(plan.settings.raw, 'hosts')
  if (raw !== undefined) {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) problem('front matter `hosts` must be a mapping of host names to `{type, address, slots, …}`', at('hosts'))
    else for (const [name, value] of Object.entries(raw)) {
      const spec = readSpec(name, value, (reason) => problem(`host \`${name}\`: ${reason}`, at(name, 'hosts')))
      if (spec) hosts.set(name, spec)
    }
  }

  const known = (names: string[], where: Point | undefined | ((name: string) => Point | undefined), what: string): string[] => {
    for (const name of names) {
      const at = typeof where === 'function' ? where(name) : where
      if (!hosts.has(name)) problem(`unknown host \`${name}\` in ${what}; declare it under \`hosts:\` (known: ${[...hosts.keys()].join(', ')})`, at, 'unknown-host')
    }
    return names.filter((name) => hosts.has(name))
  }
  const defaultRaw = entry(plan.settings.raw, 'host')
  let pool: string[] = [localHostName]
  if (cliHost !== undefined) pool = known(splitNames(cliHost), undefined, '--host')
  else if (defaultRaw !== undefined) {
    const names = Array.isArray(defaultRaw) ? defaultRaw.map(String) : typeof defaultRaw === 'string' ? splitNames(defaultRaw) : undefined
    if (!names || names.length === 0) problem('front matter `host` must be a host name or a list of them (a pool)', at('host'))
    else {
      const key = at('host')
      const end = key ? plan.text.indexOf('\n', key.offset) : -1
      const line = key ? plan.text.slice(key.offset, end === -1 ? undefined : end) : ''
      // At the name on the key's line (a block list further down: at the key).
      const nameAt = (name: string): Point | undefined => {
        const found = new RegExp(`(?<=[:\\s,\\[])${escape(name)}(?![\\w.-])`).exec(line)
        return key && found ? locate(plan.text).point(key.offset + found.index) : key
      }
      pool = known(names, nameAt, 'front matter `host`')
    }
  }
  const own = new Map<string, string[]>()
  for (const agent of plan.agents) {
    const field = agent.fields.host
    if (!field) continue
    const names = splitNames(field.value)
    if (names.length === 0) problem(`agent ${agent.id}: \`host\` must name a host or a pool`, field.position.start)
    // At the name itself, not at the field's `-`.
    else own.set(agent.id, known(names, (name) => fieldPoint(plan.text, field, name), `\`host\` of agent ${agent.id}`))
  }
  const poolFor = (agent: Agent): readonly string[] => (agent.fields.host ? splitNames(agent.fields.host.value) : pool)
  const unplaceable = (agent: Agent): string | undefined => {
    const names = poolFor(agent)
    if (names.length === 0) return `agent ${agent.id}: \`host\` must name a host or a pool`
    const unknown = names.filter((name) => !hosts.has(name))
    if (unknown.length === 0) return undefined
    return `unknown host ${unknown.map((name) => `\`${name}\``).join(', ')} in \`host\` of agent ${agent.id}; declare it under \`hosts:\` (known: ${[...hosts.keys()].join(', ')})`
  }
  return {hosts, poolOf: (id) => own.get(id) ?? pool, poolFor, unplaceable, diagnostics}
}

function readSpec(name: string, value: unknown, problem: (reason: string) => void): HostSpec | undefined {
  if (!/^[A-Za-z][A-Za-z0-9_.-]*$/.test(name)) return problem('a host name is letters, digits, `_`, `.` and `-`, starting with a letter'), undefined
  if (name === localHostName) return problem('`local` is the machine mdplan runs on; it needs no declaration'), undefined
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return problem('must be a mapping such as `{type: ssh, address: dev@build1, slots: 8}`'), undefined
  const fields = Object.fromEntries(Object.entries(value).map(([key, v]) => [normalizeKey(key), v as unknown]))
  const type = fields.type
  if (type !== 'ssh' && type !== 'container' && type !== 'slurm' && type !== 'kubernetes') {
    return problem(`\`type\` must be \`ssh\`, \`container\`, \`slurm\` or \`kubernetes\`, got ${JSON.stringify(type ?? null)}`), undefined
  }
  const spec: HostSpec = {name, type, slots: 1, env: [], leaseMs: defaultLeaseMs}
  const text = (key: string): string | undefined => {
    const v = fields[key]
    if (v === undefined) return undefined
    if (typeof v !== 'string' || v.trim() === '') return problem(`\`${key}\` must be a non-empty string`), undefined
    return v.trim()
  }
  spec.address = text('address')
  spec.config = text('config')
  spec.dir = text('dir')
  spec.image = text('image')
  spec.engine = text('engine')
  if (type === 'slurm' || type === 'kubernetes') readClusterFields(spec, fields, text, problem)
  if (type === 'ssh' && !spec.address) problem('an ssh host needs `address` (`user@host`, or an alias from ~/.ssh/config)')
  if (type === 'container' && !spec.image) problem('a container host needs `image` (for example `localhost/agent:1`)')
  if (spec.engine !== undefined && spec.engine !== 'podman' && spec.engine !== 'docker') problem('`engine` must be `podman` or `docker`')
  if (spec.address?.startsWith('-')) problem('`address` cannot start with `-`')
  for (const key of ['slots', 'port'] as const) {
    const v = fields[key]
    if (v === undefined) continue
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) problem(`\`${key}\` must be a whole number of at least 1`)
    else spec[key] = v
  }
  if (fields.env !== undefined) {
    const env = Array.isArray(fields.env) ? fields.env : typeof fields.env === 'string' ? splitNames(fields.env) : undefined
    if (!env || !env.every((v) => typeof v === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(v))) problem('`env` must list variable names, such as `[ANTHROPIC_API_KEY]`')
    else spec.env = env as string[]
  }
  if (fields.lease !== undefined) {
    const ms = typeof fields.lease === 'number' || typeof fields.lease === 'string' ? parseDuration(String(fields.lease)) : undefined
    if (ms === undefined || ms <= 0) problem('`lease` must be a duration such as `2m` or `30s`')
    else spec.leaseMs = ms
  }
  return spec
}

/** Slurm's and Kubernetes' own options (src/hosts/slurm/slurm-host.ts, kubernetes-host.ts). */
function readClusterFields(spec: HostSpec, fields: Record<string, unknown>, text: (key: string) => string | undefined, problem: (reason: string) => void): void {
  spec.partition = text('partition')
  spec.time = text('time')
  spec.memory = text('memory')
  spec.namespace = text('namespace')
  spec.context = text('context')
  spec.serviceAccount = text('service_account') ?? text('serviceaccount')
  spec.secret = text('secret')
  if (fields.cpus !== undefined) {
    if (typeof fields.cpus !== 'number' || !(fields.cpus > 0)) problem('`cpus` must be a number above 0')
    else spec.cpus = fields.cpus
  }
  if (fields.sbatch !== undefined) {
    const args = Array.isArray(fields.sbatch) ? fields.sbatch : typeof fields.sbatch === 'string' ? fields.sbatch.split(/\s+/).filter(Boolean) : undefined
    if (!args || !args.every((arg) => typeof arg === 'string' && arg.startsWith('-'))) problem('`sbatch` must list `sbatch` options, such as `[--qos=long, --account=lab]`')
    else spec.sbatch = args as string[]
  }
  // The job folder is shared: the coordinator writes the code in and reads the work back there, the job runs there.
  if (spec.type === 'slurm' && !spec.dir) problem('a slurm host needs `dir`: a folder this machine and the compute nodes share (for example `~/mdplan-jobs` on a shared home)')
  if (spec.type === 'slurm' && spec.dir && !/^(\/|~\/|~$)/.test(spec.dir)) problem('`dir` must be an absolute path (or start with `~/`)')
  if (spec.type === 'kubernetes' && !spec.image) problem('a kubernetes host needs `image`: one with the agent\'s CLI and git (for example `ghcr.io/acme/agent:1`)')
  if (spec.namespace !== undefined && !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(spec.namespace)) problem('`namespace` must be a Kubernetes name (lowercase letters, digits and `-`)')
  if (spec.secret !== undefined && !/^[a-z0-9]([-.a-z0-9]{0,251}[a-z0-9])?$/.test(spec.secret)) problem('`secret` must name a Kubernetes Secret (lowercase letters, digits, `-` and `.`)')
}

function entry(raw: Record<string, unknown>, key: string): unknown {
  for (const [name, value] of Object.entries(raw)) if (normalizeKey(name) === key) return value
  return undefined
}

function splitNames(text: string): string[] {
  return text
    .replace(/^\s*\[|\]\s*$/g, '')
    .split(/[,\s]+/)
    .map((name) => name.replace(/^`|`$/g, ''))
    .filter(Boolean)
}

/** Where a key is written in the front matter (`parent` narrows it to the lines after that key). */
function frontMatterFinder(plan: Plan): (key: string, parent?: string) => Point | undefined {
  const span = plan.settings.position
  if (!span) return () => undefined
  const locator = locate(plan.text)
  const source = plan.text.slice(span.start.offset, span.end.offset)
  return (key, parent) => {
    let from = 0
    if (parent) {
      const parentAt = new RegExp(`^${escape(parent)}\\s*:`, 'm').exec(source)
      if (parentAt) from = parentAt.index
    }
    const match = new RegExp(`^[ \\t]*${escape(key)}\\s*:`, 'm').exec(source.slice(from))
    if (!match) return undefined
    const indent = match[0].length - match[0].trimStart().length
    return locator.point(span.start.offset + from + match.index + indent)
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
