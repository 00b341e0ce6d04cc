import {formatDuration} from '../util/format-duration.js'

/**
 * How long a CLI's login check (`claude auth status`, `codex login status`,
 * `opencode auth list`) may take, here or on a host. Each is a whole start of
 * the CLI: the real `opencode auth list` took over 20 s on a loaded machine
 * (load 13 on 2 cores, beside six opencode agents), and a check that did not
 * answer in time used to let the run launch unconfirmed. Generous, since a
 * check that still does not answer now stops the run. `MDPLAN_LOGIN_CHECK_TIMEOUT_MS`
 * is for tests only (a fake CLI that answers too late, in seconds instead of minutes).
 */
export function loginCheckLimitMs(env: NodeJS.ProcessEnv = process.env): number {
  const set = Number(env.MDPLAN_LOGIN_CHECK_TIMEOUT_MS)
  return Number.isFinite(set) && set > 0 ? set : 120_000
}

/**
 * The line for a login check that did not answer in time: what it checks
 * (`claude's login`), which command, how long it had, and what to do. `instead`: a way to run without the check
 * (a key in the environment), when the CLI has one.
 */
export function slowLoginCheck(input: {what: string; command: string; limitMs: number; where?: string; instead?: string}): string {
  const where = input.where ? ` on ${input.where}` : ''
  const run = input.where ? `run \`${input.command}\` on ${input.where}` : `run \`${input.command}\``
  return (
    `${input.what} could not be confirmed${where}: \`${input.command}\` did not answer within ${formatDuration(input.limitMs)}, ` +
    `so nothing was launched: ${run} yourself to see what it waits for (a prompt, the network, a locked keychain), then run mdplan again` +
    (input.instead ? `; or ${input.instead}` : '')
  )
}
