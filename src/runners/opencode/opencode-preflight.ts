import {readFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {dirname, join} from 'node:path'
import type {PreflightInput} from '../runner.js'
import {runStatusCommand} from '../../process/run-status-command.js'
import {loginCheckLimitMs, slowLoginCheck} from '../login-check-limit.js'
import {opencodeConfigNamesProvider} from './opencode-config-names-provider.js'
import {opencodeNoProvider} from './opencode-no-provider.js'

/**
 * Before launching opencode: some provider can answer. With none, opencode
 * 1.18 falls back to its hosted default model, and with no network that
 * attempt waits about 71 s and ends as a transient error, so a run would
 * pause and retry for half an hour before anything counts. `opencode auth
 * list` (alias of `providers list`) names the stored credentials and the
 * provider variables it sees in the environment; a provider configured in an
 * opencode config file (a local server needs no key) counts too. An answer
 * not in the shape we know is not held against it; no answer at all (`auth
 * list` is a whole opencode start: over 20 s on a loaded machine, hence the
 * generous limit) stops the run, since nothing launches unconfirmed.
 * A host's preflight does the same there (opencode-remote-auth.ts).
 */
export async function opencodePreflight(input: PreflightInput): Promise<string[]> {
  // A config file needs no process: read first, so a configured provider never waits on opencode.
  if (configuresProvider(input.env, input.cwd)) return []
  const status = await runStatusCommand(input.executable, ['auth', 'list'], {env: input.env, cwd: input.cwd, timeoutMs: loginCheckLimitMs()})
  if (status.timedOut) {
    return [slowLoginCheck({what: "opencode's provider", command: 'opencode auth list', limitMs: loginCheckLimitMs(), instead: 'configure a provider in opencode.json (read without asking opencode)'})]
  }
  if (status.exitCode !== 0 || !opencodeNoProvider(status.stdout)) return []
  return [
    'opencode has no provider (`opencode auth list` shows 0 credentials and no provider variable, and no opencode.json configures one): run `opencode auth login`, or set a provider key such as ANTHROPIC_API_KEY or OPENAI_API_KEY, or configure a provider in opencode.json'
  ]
}

/** Whether an opencode config file opencode would read defines a `provider` block (or the config comes in a variable). */
function configuresProvider(env: NodeJS.ProcessEnv, cwd: string): boolean {
  if (env.OPENCODE_CONFIG_CONTENT && opencodeConfigNamesProvider(env.OPENCODE_CONFIG_CONTENT)) return true
  const home = env.HOME || homedir()
  const configHome = env.XDG_CONFIG_HOME || join(home, '.config')
  const files = [env.OPENCODE_CONFIG, join(configHome, 'opencode', 'opencode.json'), join(configHome, 'opencode', 'opencode.jsonc'), join(configHome, 'opencode', 'config.json')]
  // Project config: opencode looks from the folder it runs in up to the file system's root.
  for (let dir = cwd; ; dir = dirname(dir)) {
    files.push(join(dir, 'opencode.json'), join(dir, 'opencode.jsonc'), join(dir, '.opencode', 'opencode.json'), join(dir, '.opencode', 'opencode.jsonc'))
    if (dirname(dir) === dir) break
  }
  return files.some((file) => {
    if (!file) return false
    try {
      return opencodeConfigNamesProvider(readFileSync(file, 'utf8'))
    } catch {
      return false
    }
  })
}
