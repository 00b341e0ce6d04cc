import {foldersUp, type AuthCheck, type ProjectFiles, type RemoteAuthInput} from '../host-auth.js'
import {envFileNamesGeminiAuth} from './env-file-names-gemini-auth.js'
import {geminiAuthVerdict} from './gemini-auth-verdict.js'
import {geminiSelectedType} from './gemini-selected-type.js'

/**
 * The project files gemini reads its auth from, for a plan in folder `prefix`: the plan folder's
 * `.gemini/settings.json`, and each `.env` (or `.gemini/.env`) from there up to the repository's root.
 */
function geminiProjectFiles(prefix: string): {settings: string; envFiles: string[]} {
  return {settings: `${prefix}.gemini/settings.json`, envFiles: foldersUp(prefix).flatMap((folder) => [`${folder}.gemini/.env`, `${folder}.env`])}
}

export function geminiProjectAuthFiles(prefix: string): string[] {
  const {settings, envFiles} = geminiProjectFiles(prefix)
  return [settings, ...envFiles]
}

/** What gemini would read of its auth in an agent's clone: the auth type its settings select, and whether a `.env` names an auth variable. */
function geminiProjectAuth(project: ProjectFiles): {selected?: string; envFile: boolean} {
  const {settings, envFiles} = geminiProjectFiles(project.prefix)
  return {
    selected: geminiSelectedType(project.texts.get(settings) ?? ''),
    envFile: envFiles.some((path) => envFileNamesGeminiAuth(project.texts.get(path) ?? ''))
  }
}

/** gemini has no status command: the host reports what gemini reads there, judged as the local preflight judges it. */
export function geminiRemoteAuth({executable, passed, host, project}: RemoteAuthInput): AuthCheck {
  const fromProject = geminiProjectAuth(project)
  return {
    words: ['gemini', executable],
    verdict: ({facts}) => {
      // Not read: gemini is not installed there (said on its own line).
      if (!facts.includes('read')) return undefined
      const env: NodeJS.ProcessEnv = {}
      const selected = new Map<string, string>()
      for (const fact of facts) {
        const [kind, name, ...rest] = fact.split(' ')
        if (kind === 'env' && name) env[name] = rest[0] === 'true' || rest[0] === 'false' ? rest[0] : 'set'
        if (kind === 'selected' && name && rest.length > 0 && !selected.has(name)) selected.set(name, rest.join(' '))
      }
      // The variables the host passes by name win over its own environment; the settings files in gemini's order.
      for (const [name, value] of Object.entries(passed)) if (value !== undefined) env[name] = value
      const type = selected.get('home') ?? fromProject.selected ?? selected.get('system') ?? selected.get('gemini-home')
      const verdict = geminiAuthVerdict({selected: type, env, envFile: facts.includes('envfile') || fromProject.envFile})
      if (verdict === 'no-auth-method') {
        return `gemini has no auth method there (it would exit 41: no GEMINI_API_KEY or other auth variable in the environment there or passed with \`env:\`, no auth type in ~/.gemini/settings.json there): pass a key with \`env: [GEMINI_API_KEY]\` on the host (or GOOGLE_GENAI_USE_VERTEXAI with GOOGLE_API_KEY, or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION), or run \`gemini\` once on ${host} and choose an auth method`
      }
      if (verdict === 'vertex-without-project') {
        return `gemini uses Vertex AI there but has no project: pass GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION, or GOOGLE_API_KEY (express mode), with \`env:\` on the host, or set them in the environment on ${host}`
      }
      return undefined
    },
    // Reads files only, never waits on gemini.
    slow: () => `gemini's auth could not be read on ${host}`
  }
}
