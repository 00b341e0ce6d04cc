import {geminiAuthVariables} from './gemini-auth-variables.js'

/**
 * What gemini would make of its auth, from what it reads (the local preflight reads it here, a host's
 * preflight there): the auth type a settings file selects, the environment (a value counts unless empty or
 * `false`; `true` is read as such), and whether a `.env` file gemini loads names an auth variable.
 * `no-auth-method`: gemini would exit 41. `vertex-without-project`: Vertex AI with neither a key nor a
 * project and location. Undefined when gemini has what it needs.
 */
export function geminiAuthVerdict(input: {selected: string | undefined; env: NodeJS.ProcessEnv; envFile: boolean}): 'no-auth-method' | 'vertex-without-project' | undefined {
  const {selected, env, envFile} = input
  const fromEnv = geminiAuthVariables.some((name) => env[name] !== undefined && env[name] !== '' && env[name] !== 'false')
  if (selected === undefined && !fromEnv && !envFile) return 'no-auth-method'
  const vertex = selected === 'vertex-ai' || env.GOOGLE_GENAI_USE_VERTEXAI === 'true'
  if (vertex && !env.GOOGLE_API_KEY && !(env.GOOGLE_CLOUD_PROJECT && env.GOOGLE_CLOUD_LOCATION) && !envFile) return 'vertex-without-project'
  return undefined
}
