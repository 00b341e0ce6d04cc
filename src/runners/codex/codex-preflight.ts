import type {PreflightInput} from '../runner.js'
import {runStatusCommand} from '../../process/run-status-command.js'
import {loginCheckLimitMs, slowLoginCheck} from '../login-check-limit.js'

/**
 * Before launching codex: logged in. `codex exec` with no credentials does not
 * fail, it reconnects forever, so this is the only place to catch it.
 * `CODEX_API_KEY` is honoured by `codex exec` without a login. A check that
 * never answers stops the run too: nothing launches unconfirmed.
 */
export async function codexPreflight(input: PreflightInput): Promise<string[]> {
  if (input.env.CODEX_API_KEY) return []
  const status = await runStatusCommand(input.executable, ['login', 'status'], {env: input.env, cwd: input.cwd, timeoutMs: loginCheckLimitMs()})
  if (status.timedOut) return [slowLoginCheck({what: "codex's login", command: 'codex login status', limitMs: loginCheckLimitMs(), instead: 'set CODEX_API_KEY (then codex is not asked)'})]
  if (status.exitCode === undefined || status.exitCode === 0) return []
  if (!/not logged in/i.test(`${status.stdout}\n${status.stderr}`)) return []
  return [
    'codex is not logged in (`codex login status` says Not logged in): run `codex login`, or `printenv OPENAI_API_KEY | codex login --with-api-key`, or set CODEX_API_KEY'
  ]
}
