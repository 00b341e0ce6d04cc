import {readFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {dirname, join} from 'node:path'
import type {PreflightInput} from '../runner.js'
import {envFileNamesGeminiAuth} from './env-file-names-gemini-auth.js'
import {geminiAuthVerdict} from './gemini-auth-verdict.js'
import {geminiSelectedType} from './gemini-selected-type.js'

/**
 * Before launching gemini: an auth method is chosen, in a settings file
 * (`security.auth.selectedType`) or the environment; without one gemini exits
 * 41. Vertex AI also needs a project and location, or GOOGLE_API_KEY. Reads
 * files only: gemini has no status command. `.env` files gemini would load count.
 * A host's preflight reads the same there (gemini-remote-auth.ts).
 */
export async function geminiPreflight(input: PreflightInput): Promise<string[]> {
  return geminiAuthProblems(input.env, input.cwd)
}

export function geminiAuthProblems(env: NodeJS.ProcessEnv, cwd: string): string[] {
  const home = env.HOME || homedir()
  const geminiHome = env.GEMINI_CLI_HOME
  const settingsFiles = [
    join(home, '.gemini', 'settings.json'),
    join(cwd, '.gemini', 'settings.json'),
    env.GEMINI_CLI_SYSTEM_SETTINGS_PATH ?? '/etc/gemini-cli/settings.json',
    ...(geminiHome ? [join(geminiHome, 'settings.json'), join(geminiHome, '.gemini', 'settings.json')] : [])
  ]
  const selected = settingsFiles.map((file) => geminiSelectedType(read(file))).find((type) => type !== undefined)
  switch (geminiAuthVerdict({selected, env, envFile: envFileNamesAuth(cwd, home)})) {
    case 'no-auth-method':
      return [
        `gemini has no auth method (it would exit 41): set GEMINI_API_KEY, or GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_API_KEY (or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION), or GOOGLE_GENAI_USE_GCA=true, or run \`gemini\` once and choose an auth method (saved in ${join(home, '.gemini', 'settings.json')})`
      ]
    case 'vertex-without-project':
      return ['gemini uses Vertex AI but has no project: set GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION, or GOOGLE_API_KEY (express mode)']
    default:
      return []
  }
}

function read(file: string): string {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return ''
  }
}

/** Whether a `.env` gemini loads (cwd upwards, then home) names an auth variable: then gemini may well be keyed. */
function envFileNamesAuth(cwd: string, home: string): boolean {
  const candidates: string[] = []
  for (let dir = cwd; ; dir = dirname(dir)) {
    candidates.push(join(dir, '.gemini', '.env'), join(dir, '.env'))
    if (dirname(dir) === dir) break
  }
  candidates.push(join(home, '.gemini', '.env'), join(home, '.env'))
  return candidates.some((file) => envFileNamesGeminiAuth(read(file)))
}
