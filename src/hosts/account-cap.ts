import type {Settings} from '../plan/types.js'
import type {Runner} from '../runners/runner.js'
import type {HostSpec} from './host-spec.js'

/** Where an account's cap comes from, for messages. */
export type CapSource = 'host' | 'front matter' | 'runner'

/**
 * The most attempts of `runner` that may run at once on one host's account (docs/limits.md, "Accounts"): the
 * host's own `accounts:`, else the front matter's, else the runner's default. Undefined: no cap (a child plan,
 * a shell or command-template runner nobody capped).
 */
export function accountCap(settings: Settings, host: HostSpec | undefined, runner: Pick<Runner, 'name' | 'accountConcurrency'>): {cap: number; from: CapSource} | undefined {
  if (runner.name === 'plan') return undefined
  const own = host?.accounts?.[runner.name]
  if (own !== undefined) return {cap: own, from: 'host'}
  const plan = settings.accounts?.caps[runner.name]
  if (plan !== undefined) return {cap: plan, from: 'front matter'}
  return runner.accountConcurrency === undefined ? undefined : {cap: runner.accountConcurrency, from: 'runner'}
}
