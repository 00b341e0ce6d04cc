import type {AuthCheck, RemoteAuthInput} from '../host-auth.js'
import {slowLoginCheck} from '../login-check-limit.js'
import {keyed, loggedIn} from './claude-preflight.js'

/** claude on a host: `claude auth status` there, unless the host passes a key from here. */
export function claudeRemoteAuth({executable, passed, host}: RemoteAuthInput): AuthCheck | undefined {
  if (keyed(passed)) return undefined
  return {
    words: ['cli', executable, 'auth', 'status'],
    verdict: ({answer}) =>
      answer && loggedIn(answer.stdout) === false
        ? `claude is not logged in there (\`claude auth status\` says "loggedIn": false): run \`claude auth login\` on ${host}, or pass a key with \`env: [ANTHROPIC_API_KEY]\` on the host`
        : undefined,
    slow: (limitMs) => slowLoginCheck({what: "claude's login", command: 'claude auth status', limitMs, where: host, instead: 'pass a key with `env: [ANTHROPIC_API_KEY]` on the host'})
  }
}
