import {locate} from '../plan/locate.js'
import type {Agent, Diagnostic, Plan, Point} from '../plan/types.js'
import {builtinRunners} from '../runners/builtin-runners.js'
import type {Runner} from '../runners/runner.js'
import {runnerPlace} from '../runners/runner-place.js'
import {plural} from '../util/plural.js'
import {capsInEffect} from './caps-in-effect.js'
import type {PlanHosts} from './read-hosts.js'

/** The runner names an account may be named by: the built-in runners, and `command` for every command template. */
export const accountRunners: readonly string[] = [...builtinRunners.keys(), 'command']

/**
 * What `validate` (and a run's start) says of `accounts:` (docs/limits.md, "Accounts"): a runner name no agent
 * could use (with the known ones), and a plan whose `concurrency` lets more agents of a runner run at once than
 * their accounts allow, where the cap, not `concurrency`, decides. Warnings: the plan runs as written.
 */
export function checkAccounts(plan: Plan, hosts: PlanHosts, runnerOf: (agent: Agent) => Runner, concurrency: {value: number; from: 'flag' | 'front matter' | 'default'}): Diagnostic[] {
  const messages: Diagnostic[] = []
  const warn = (rule: string, reason: string, place: Point | undefined): void => {
    messages.push({severity: 'warning', rule, reason, file: plan.file, ...(place ? {place} : {})})
  }
  const accounts = plan.settings.accounts
  const known = `(known: ${accountRunners.join(', ')}); it caps nothing`
  for (const name of Object.keys(accounts?.caps ?? {})) {
    if (!accountRunners.includes(name)) warn('unknown-account-runner', `front matter \`accounts\`: unknown runner \`${name}\` ${known}`, accounts!.entries[name])
  }
  for (const [host, spec] of hosts.hosts) {
    for (const name of Object.keys(spec.accounts ?? {})) {
      if (!accountRunners.includes(name)) warn('unknown-account-runner', `host \`${host}\`: \`accounts\`: unknown runner \`${name}\` ${known}`, frontMatterPoint(plan, new RegExp(`^[ \\t]*${host.replace(/\./g, '\\.')}\\s*:`, 'm')))
    }
  }
  for (const {name, agents, caps} of capsInEffect(plan, hosts, runnerOf)) {
    if (caps.some(({cap}) => cap === undefined)) continue
    const allowed = caps.reduce((sum, {cap}) => sum + cap!.cap, 0)
    const could = Math.min(agents.length, concurrency.value)
    if (could <= allowed) continue
    const each = caps.map(({host, cap}) => `${cap!.cap} on ${host} (${cap!.from === 'host' ? `host \`${host}\`'s \`accounts\`` : cap!.from === 'front matter' ? 'front matter `accounts`' : `the ${name} runner's default`})`).join(' + ')
    const said = concurrency.from === 'flag' ? `--concurrency ${concurrency.value}` : `concurrency ${concurrency.value}${concurrency.from === 'default' ? ' (the default)' : ''}`
    const reason = `${said} would run ${could} of the ${plural(agents.length, `\`${name}\` agent`)} at once, but their ${caps.length === 1 ? 'account allows' : 'accounts allow'} ${allowed}: ${each}; the account cap applies`
    const place = (concurrency.from !== 'front matter' ? undefined : frontMatterPoint(plan, /^concurrency\s*:/m)) ?? accounts?.entries[name] ?? pointOf(runnerPlace(plan, agents[0]))
    warn('concurrency-over-account', reason, place)
  }
  return messages
}

/** Where a pattern first matches in the front matter, if it does. */
function frontMatterPoint(plan: Plan, pattern: RegExp): Point | undefined {
  const span = plan.settings.position
  if (!span) return undefined
  const match = pattern.exec(plan.text.slice(span.start.offset, span.end.offset))
  if (!match) return undefined
  const indent = match[0].length - match[0].trimStart().length
  return locate(plan.text).point(span.start.offset + match.index + indent)
}

function pointOf(place: ReturnType<typeof runnerPlace>): Point | undefined {
  return place === undefined ? undefined : 'start' in place ? place.start : place
}
