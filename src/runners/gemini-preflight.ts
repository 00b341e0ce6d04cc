import {readFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {dirname, join} from 'node:path'
import type {PreflightInput} from './runner.js'

/** The variables gemini-cli 0.61 reads to pick an auth method by itself (getAuthTypeFromEnv). */
const authVariables = ['GEMINI_API_KEY', 'GOOGLE_GENAI_USE_VERTEXAI', 'GOOGLE_GENAI_USE_GCA', 'GOOGLE_GEMINI_BASE_URL', 'GEMINI_CLI_USE_COMPUTE_ADC', 'CLOUD_SHELL']

/**
 * Before launching gemini: an auth method is chosen, in a settings file
 * (`security.auth.selectedType`) or the environment; without one gemini exits
 * 41. Vertex AI also needs a project and location, or GOOGLE_API_KEY. Reads
 * files only: gemini has no status command. `.env` files gemini would load count.
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
  const selected = settingsFiles.map(selectedAuthType).find((type) => type !== undefined)
  const fromEnv = authVariables.some((name) => env[name] !== undefined && env[name] !== '' && env[name] !== 'false')
  if (selected === undefined && !fromEnv && !envFileNamesAuth(cwd, home)) {
    return [
      `gemini has no auth method (it would exit 41): set GEMINI_API_KEY, or GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_API_KEY (or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION), or GOOGLE_GENAI_USE_GCA=true, or run \`gemini\` once and choose an auth method (saved in ${join(home, '.gemini', 'settings.json')})`
    ]
  }
  const vertex = selected === 'vertex-ai' || env.GOOGLE_GENAI_USE_VERTEXAI === 'true'
  if (vertex && !env.GOOGLE_API_KEY && !(env.GOOGLE_CLOUD_PROJECT && env.GOOGLE_CLOUD_LOCATION) && !envFileNamesAuth(cwd, home)) {
    return ['gemini uses Vertex AI but has no project: set GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION, or GOOGLE_API_KEY (express mode)']
  }
  return []
}

function selectedAuthType(file: string): string | undefined {
  try {
    const settings = JSON.parse(readFileSync(file, 'utf8')) as {security?: {auth?: {selectedType?: unknown}}; selectedAuthType?: unknown}
    const type = settings.security?.auth?.selectedType ?? settings.selectedAuthType
    return typeof type === 'string' && type !== '' ? type : undefined
  } catch {
    return undefined
  }
}

/** Whether a `.env` gemini loads (cwd upwards, then home) names an auth variable: then gemini may well be keyed. */
function envFileNamesAuth(cwd: string, home: string): boolean {
  const names = [...authVariables, 'GOOGLE_API_KEY', 'GOOGLE_CLOUD_PROJECT']
  const candidates: string[] = []
  for (let dir = cwd; ; dir = dirname(dir)) {
    candidates.push(join(dir, '.gemini', '.env'), join(dir, '.env'))
    if (dirname(dir) === dir) break
  }
  candidates.push(join(home, '.gemini', '.env'), join(home, '.env'))
  return candidates.some((file) => {
    try {
      const text = readFileSync(file, 'utf8')
      return names.some((name) => new RegExp(`^\\s*(?:export\\s+)?${name}\\s*=`, 'm').test(text))
    } catch {
      return false
    }
  })
}
