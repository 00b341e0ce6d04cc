import {keyed, loggedIn} from '../runners/claude-preflight.js'
import {slowLoginCheck} from '../runners/login-check-limit.js'

/**
 * A CLI's own login check, asked on the host where its agents will run (the
 * host's preflight runs it in the same round trip as its other checks). A
 * clear "logged out" blocks, as the local preflight does, and so does a check
 * that does not answer within its limit (nothing launches unconfirmed).
 */
export interface AuthCheck {
  executable: string
  /** Exactly two words (`auth status`, `login status`): the remote script takes them as a pair. */
  args: readonly [string, string]
  /** The problem (without the host's name), or undefined when the answer is not a clear "logged out". */
  verdict(answer: {exitCode: number; stdout: string; stderr: string}): string | undefined
  /** The problem (without the host's name) when the check did not answer within `limitMs`. */
  slow(limitMs: number): string
}

/**
 * The login check a runner needs on a host, or undefined when it has no
 * status command (gemini, opencode) or the agents get a key from here
 * (a variable the host passes by name, set in this environment).
 */
export function authCheck(runner: string, executable: string, passed: NodeJS.ProcessEnv, host: string): AuthCheck | undefined {
  if (runner === 'claude' && !keyed(passed)) {
    return {
      executable,
      args: ['auth', 'status'],
      verdict: ({stdout}) =>
        loggedIn(stdout) === false
          ? `claude is not logged in there (\`claude auth status\` says "loggedIn": false): run \`claude auth login\` on ${host}, or pass a key with \`env: [ANTHROPIC_API_KEY]\` on the host`
          : undefined,
      slow: (limitMs) => slowLoginCheck({what: "claude's login", command: 'claude auth status', limitMs, where: host, instead: 'pass a key with `env: [ANTHROPIC_API_KEY]` on the host'})
    }
  }
  if (runner === 'codex' && !passed.CODEX_API_KEY) {
    return {
      executable,
      args: ['login', 'status'],
      verdict: ({exitCode, stdout, stderr}) =>
        exitCode !== 0 && /not logged in/i.test(`${stdout}\n${stderr}`)
          ? `codex is not logged in there (\`codex login status\` says Not logged in): run \`codex login\` on ${host}, or pass a key with \`env: [CODEX_API_KEY]\` on the host`
          : undefined,
      slow: (limitMs) => slowLoginCheck({what: "codex's login", command: 'codex login status', limitMs, where: host, instead: 'pass a key with `env: [CODEX_API_KEY]` on the host'})
    }
  }
  return undefined
}
