import type {AuthCheck, RemoteAuthInput} from '../host-auth.js'
import {slowLoginCheck} from '../login-check-limit.js'

/** codex on a host: `codex login status` there, unless the host passes CODEX_API_KEY from here. */
export function codexRemoteAuth({executable, passed, host}: RemoteAuthInput): AuthCheck | undefined {
  if (passed.CODEX_API_KEY) return undefined
  return {
    words: ['cli', executable, 'login', 'status'],
    verdict: ({answer}) =>
      answer && answer.exitCode !== 0 && /not logged in/i.test(`${answer.stdout}\n${answer.stderr}`)
        ? `codex is not logged in there (\`codex login status\` says Not logged in): run \`codex login\` on ${host}, or pass a key with \`env: [CODEX_API_KEY]\` on the host`
        : undefined,
    slow: (limitMs) => slowLoginCheck({what: "codex's login", command: 'codex login status', limitMs, where: host, instead: 'pass a key with `env: [CODEX_API_KEY]` on the host'})
  }
}
