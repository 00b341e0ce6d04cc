import type {PreflightInput} from '../runner.js'
import {runStatusCommand} from '../../process/run-status-command.js'
import {loginCheckLimitMs, slowLoginCheck} from '../login-check-limit.js'

/** Modes claude accepts without listing them in `--help` (2.1.330 still takes `default`). */
const unlisted = ['default']

/**
 * Before launching claude: logged in (`claude auth status` answers JSON with
 * `loggedIn`), every permission mode one the installed version lists in
 * `--help`, and no `bypassPermissions` as root (claude refuses it there).
 * A clear "logged out" blocks, and so does a login check that never answers
 * (nothing launches unconfirmed); other unclear answers are left to the run.
 */
export async function claudePreflight(input: PreflightInput): Promise<string[]> {
  const {executable, env, cwd, permissionModes} = input
  const [auth, help] = await Promise.all([
    // A key or a third-party provider in the environment counts as logged in (`claude auth status` says so too,
    // after a second of start-up on the critical path of every run).
    keyed(env) ? undefined : runStatusCommand(executable, ['auth', 'status'], {env, cwd, timeoutMs: loginCheckLimitMs()}),
    permissionModes.some((mode) => mode !== undefined) ? runStatusCommand(executable, ['--help'], {env, cwd}) : undefined
  ])
  const problems: string[] = []
  if (auth?.timedOut) {
    problems.push(slowLoginCheck({what: "claude's login", command: 'claude auth status', limitMs: loginCheckLimitMs(), instead: 'set ANTHROPIC_API_KEY (then claude is not asked)'}))
  } else if (auth && loggedIn(auth.stdout) === false) {
    problems.push(
      'claude is not logged in (`claude auth status` says "loggedIn": false): run `claude auth login` (or `claude setup-token`), or set ANTHROPIC_API_KEY'
    )
  }
  const accepted = help ? permissionModeChoices(help.stdout) : undefined
  for (const mode of new Set(permissionModes)) {
    if (mode === undefined) continue
    if (accepted && !accepted.includes(mode)) {
      problems.push(
        `claude does not accept the permission mode "${mode}": use one of ${accepted.filter((m) => !unlisted.includes(m)).join(', ')} (permission_mode in the front matter or the agent, or --permission-mode)`
      )
    } else if (mode === 'bypassPermissions' && isRoot() && env.IS_SANDBOX !== '1') {
      problems.push(
        'claude refuses the permission mode "bypassPermissions" when running as root (`--dangerously-skip-permissions cannot be used with root/sudo privileges`): run mdplan as a normal user, choose acceptEdits, or set IS_SANDBOX=1 inside a sandbox'
      )
    }
  }
  return problems
}

/** `loggedIn` from `claude auth status`'s JSON; undefined when the output is not that JSON. */
export function loggedIn(stdout: string): boolean | undefined {
  try {
    const status = JSON.parse(stdout) as {loggedIn?: unknown}
    return typeof status.loggedIn === 'boolean' ? status.loggedIn : undefined
  } catch {
    return undefined
  }
}

/** The `--permission-mode` choices `claude --help` lists (wrapped over lines), plus `default`. */
export function permissionModeChoices(help: string): string[] | undefined {
  const match = /--permission-mode <mode>[\s\S]*?\(choices:([^)]*)\)/.exec(help)
  if (!match) return undefined
  const listed = [...match[1]!.matchAll(/"([^"]+)"/g)].map((m) => m[1]!)
  return listed.length === 0 ? undefined : [...listed, ...unlisted]
}

const keys = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN', 'CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX', 'CLAUDE_CODE_USE_FOUNDRY']

export function keyed(env: NodeJS.ProcessEnv): boolean {
  return keys.some((name) => env[name] !== undefined && env[name] !== '' && env[name] !== '0')
}

function isRoot(): boolean {
  return process.getuid?.() === 0
}
