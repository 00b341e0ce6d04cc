import {locate} from '../plan/locate.js'
import {fieldPoint} from '../plan/field-point.js'
import {normalizeKey} from '../plan/normalize-key.js'
import type {Agent, Diagnostic, Plan, Point} from '../plan/types.js'
import {parseDuration} from '../util/parse-duration.js'
import {readAccountCaps} from '../plan/read-account-caps.js'
import {defaultLeaseMs, localHostName, localHostSpec, type HostSpec} from './host-spec.js'
import {wholeNumber} from './host-fields.js'
import {hostTypeMap, type HostTypeName} from './host-types.js'

export interface PlanHosts {
  /** Every declared host by name, `local` included; each one's type is one of `hostTypes`. */
  hosts: ReadonlyMap<string, HostSpec<HostTypeName>>
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
  const hosts = new Map<string, HostSpec<HostTypeName>>([[localHostName, localHostSpec as HostSpec<HostTypeName>]])
  const raw = entry(plan.settings.raw, 'hosts')
  if (raw !== undefined) {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) problem('front matter `hosts` must be a mapping of host names to `{type, address, slots, …}`', at('hosts'))
    else for (const [name, value] of Object.entries(raw)) {
      const spec = readSpec(name, value, (reason) => problem(`host \`${name}\`: ${reason}`, at(name, 'hosts')), () => typePoint(plan, at(name, 'hosts')), problem)
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

function readSpec(name: string, value: unknown, problem: (reason: string) => void, typeAt: () => Point | undefined, problemAt: (reason: string, place: Point | undefined) => void): HostSpec<HostTypeName> | undefined {
  if (!/^[A-Za-z][A-Za-z0-9_.-]*$/.test(name)) return problem('a host name is letters, digits, `_`, `.` and `-`, starting with a letter'), undefined
  if (name === localHostName) return problem('`local` is the machine mdplan runs on; it needs no declaration'), undefined
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return problem('must be a mapping such as `{type: ssh, address: dev@build1, slots: 8}`'), undefined
  const fields = Object.fromEntries(Object.entries(value).map(([key, v]) => [normalizeKey(key), v as unknown]))
  const declarable = Object.keys(hostTypeMap).filter((type) => !hostTypeMap[type]!.implicit)
  const hostType = typeof fields.type === 'string' ? hostTypeMap[fields.type] : undefined
  if (fields.type === undefined) return problem(`needs \`type\` (one of ${declarable.join(', ')})`), undefined
  if (!hostType || hostType.implicit) {
    // At the word itself: a type is one of the map's (src/hosts/host-types.ts).
    return problemAt(`host \`${name}\`: unknown type ${JSON.stringify(fields.type)} (known: ${declarable.join(', ')})`, typeAt()), undefined
  }
  const spec: HostSpec<HostTypeName> = {name, type: fields.type as HostTypeName, slots: 1, env: [], leaseMs: defaultLeaseMs}
  // The type's own fields, as its descriptor reads them; a field of another type is not this one's business.
  for (const [key, field] of Object.entries(hostType.fields)) {
    const into = field.to === undefined ? (spec.own ??= {}) : (spec as unknown as Record<string, unknown>)
    const to = field.to ?? key
    if (fields[key] === undefined || into[to] !== undefined) continue
    const read = field.read(fields[key])
    if ('problem' in read) problem(`\`${key}\` ${read.problem}`)
    else into[to] = read.value
  }
  for (const said of hostType.check?.(spec) ?? []) if (said) problem(said)
  readCommonFields(spec, fields, problem)
  return spec
}

/** What every host has: `slots`, `env` (names passed from here), `lease`, `accounts` (caps of its own). */
function readCommonFields(spec: HostSpec, fields: Record<string, unknown>, problem: (reason: string) => void): void {
  if (fields.slots !== undefined) {
    const read = wholeNumber(fields.slots)
    if ('problem' in read) problem(`\`slots\` ${read.problem}`)
    else spec.slots = read.value as number
  }
  if (fields.env !== undefined) {
    const env = Array.isArray(fields.env) ? fields.env : typeof fields.env === 'string' ? splitNames(fields.env) : undefined
    if (!env || !env.every((v) => typeof v === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(v))) problem('`env` must list variable names, such as `[ANTHROPIC_API_KEY]`')
    else spec.env = env as string[]
  }
  if (fields.accounts !== undefined) {
    const read = readAccountCaps(fields.accounts)
    for (const said of read.problems) problem(`\`accounts\`${said.name === undefined ? ' must be' : ':'} ${said.problem}`)
    if (read.problems.length === 0) spec.accounts = read.caps
  }
  if (fields.lease !== undefined) {
    const ms = typeof fields.lease === 'number' || typeof fields.lease === 'string' ? parseDuration(String(fields.lease)) : undefined
    if (ms === undefined || ms <= 0) problem('`lease` must be a duration such as `2m` or `30s`')
    else spec.leaseMs = ms
  }
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

/**
 * Where a host's `type` value is written: after the host's name (`at`), on its line (`{type: vm}`) or on the
 * lines indented under it; at the name when it cannot be found.
 */
function typePoint(plan: Plan, at: Point | undefined): Point | undefined {
  if (!at) return undefined
  const lineStart = plan.text.lastIndexOf('\n', at.offset - 1) + 1
  const indent = at.offset - lineStart
  const locator = locate(plan.text)
  for (let from = at.offset, first = true; from < plan.text.length; first = false) {
    const end = plan.text.indexOf('\n', from)
    const line = plan.text.slice(from, end === -1 ? undefined : end)
    if (!first && line.trim() !== '' && line.length - line.trimStart().length <= indent) break
    const found = /(?:^|[\s{,])type\s*:\s*['"]?/.exec(line)
    if (found) return locator.point(from + found.index + found[0].length)
    if (end === -1) break
    from = end + 1
  }
  return at
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
