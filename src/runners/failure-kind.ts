/**
 * What kind of trouble a CLI's failure text describes, from the messages the
 * real clients print (reference/agent-clis.md):
 *   config     retrying cannot help: not logged in, no key, a rejected option,
 *              a refused permission mode, an unknown model
 *   transient  outside the agent and passing: network down, server 5xx
 * Rate and usage limits are `isRateLimited`'s. Only ever given error text
 * (stderr, the CLI's error event), never the agent's own words.
 */
const configPatterns = [
  /not logged in/i,
  /please run \/login/i,
  /invalid api key/i,
  /authentication[_ ]failed/i,
  /\b401\b|unauthori[sz]ed/i,
  /missing bearer/i,
  /no api key/i,
  /set an auth method/i,
  /must specify (?:the |either)/i,
  /is invalid\. allowed choices are/i,
  /unknown option|unexpected argument|unknown argument/i,
  /cannot be used with root\/sudo/i,
  /requires --verbose/i,
  /ProviderModelNotFoundError|ProviderAuthError|model not found/i,
  /not inside a trusted directory|is not trusted/i
]

const transientPatterns = [
  /\b50[0234]\b/,
  /internal server error|service unavailable|bad gateway|gateway timeout/i,
  /\b(?:ENOTFOUND|ECONNRESET|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|ENETUNREACH)\b/,
  /can't reach the api|cannot connect to api|unable to connect/i,
  /stream disconnected|waiting for network|failed to lookup address|network is unreachable|socket hang up|connection (?:failed|refused|reset)/i,
  // A stream cut mid-answer, as gemini 0.61 (undici) reports it: `[API Error: terminated]`, `SocketError: other side closed`.
  /\[API Error: terminated\]|other side closed|UND_ERR_SOCKET/i
]

export type FailureKind = 'config' | 'transient'

export function failureKind(text: string): FailureKind | undefined {
  if (configPatterns.some((pattern) => pattern.test(text))) return 'config'
  if (transientPatterns.some((pattern) => pattern.test(text))) return 'transient'
  return undefined
}
