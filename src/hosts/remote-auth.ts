import {keyed, loggedIn} from '../runners/claude/claude-preflight.js'
import {slowLoginCheck} from '../runners/login-check-limit.js'
import {geminiAuthVerdict} from '../runners/gemini/gemini-auth-verdict.js'
import {opencodeConfigNamesProvider} from '../runners/opencode/opencode-config-names-provider.js'
import {opencodeNoProvider} from '../runners/opencode/opencode-no-provider.js'
import type {ProjectAuthFacts} from './project-auth-facts.js'

/** What a host's preflight said for one check: the CLI's answer if it was asked, and the facts it read. */
export interface HostSaid {
  answer?: {exitCode: number; stdout: string; stderr: string}
  /** `env NAME true|false|set`, `selected home|system|gemini-home TYPE`, `envfile`, `read`, `config` (see preflightScript). */
  facts: readonly string[]
}

/**
 * A runner's login, checked on the host where its agents will run, in the
 * same round trip as the host's other checks: a CLI's own status command
 * (claude, codex, opencode's `auth list`), or what gemini reads there (its
 * settings files, the environment, `.env` files). A clear "logged out"
 * blocks, as the local preflight does, and so does a check that does not
 * answer within its limit (nothing launches unconfirmed).
 */
export interface AuthCheck {
  /** Its words for the host's preflight script: `cli EXE A B`, `gemini EXE`, or `opencode EXE NAMES`. */
  words: readonly string[]
  /** The problem (without the host's name), or undefined when what the host said is not a clear "logged out". */
  verdict(said: HostSaid): string | undefined
  /** The problem (without the host's name) when the check did not answer within `limitMs`. */
  slow(limitMs: number): string
}

/** A name a host passes by name (set here), so sent as a word: letters, digits and `_` only. */
const safeName = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * The login check a runner needs on a host, or undefined when the agents get
 * a key from here (a variable the host passes by name, set in this
 * environment) or the project's own files settle it. `passed`: the host's
 * `env:` names with their values here; `project`: what the agents' clone
 * will hold (projectAuthFacts).
 */
export function authCheck(runner: string, executable: string, passed: NodeJS.ProcessEnv, host: string, project: ProjectAuthFacts): AuthCheck | undefined {
  if (runner === 'claude' && !keyed(passed)) {
    return {
      words: ['cli', executable, 'auth', 'status'],
      verdict: ({answer}) =>
        answer && loggedIn(answer.stdout) === false
          ? `claude is not logged in there (\`claude auth status\` says "loggedIn": false): run \`claude auth login\` on ${host}, or pass a key with \`env: [ANTHROPIC_API_KEY]\` on the host`
          : undefined,
      slow: (limitMs) => slowLoginCheck({what: "claude's login", command: 'claude auth status', limitMs, where: host, instead: 'pass a key with `env: [ANTHROPIC_API_KEY]` on the host'})
    }
  }
  if (runner === 'codex' && !passed.CODEX_API_KEY) {
    return {
      words: ['cli', executable, 'login', 'status'],
      verdict: ({answer}) =>
        answer && answer.exitCode !== 0 && /not logged in/i.test(`${answer.stdout}\n${answer.stderr}`)
          ? `codex is not logged in there (\`codex login status\` says Not logged in): run \`codex login\` on ${host}, or pass a key with \`env: [CODEX_API_KEY]\` on the host`
          : undefined,
      slow: (limitMs) => slowLoginCheck({what: "codex's login", command: 'codex login status', limitMs, where: host, instead: 'pass a key with `env: [CODEX_API_KEY]` on the host'})
    }
  }
  if (runner === 'gemini') return geminiCheck(executable, passed, host, project)
  if (runner === 'opencode') {
    // A provider configured in the project's opencode.json, or in a config passed by name: nothing to ask.
    if (project.opencodeConfig || opencodeConfigNamesProvider(passed.OPENCODE_CONFIG_CONTENT ?? '')) return undefined
    // Asked with the passed variables set (to a stand-in): `auth list` then counts them as the agents' opencode will.
    const names = Object.keys(passed).filter((name) => passed[name] !== undefined && safeName.test(name))
    return {
      words: ['opencode', executable, names.join(',') || '-'],
      verdict: ({answer}) =>
        answer && answer.exitCode === 0 && opencodeNoProvider(answer.stdout)
          ? `opencode has no provider there (\`opencode auth list\` on ${host} shows 0 credentials and no provider variable, and no opencode.json configures one): run \`opencode auth login\` on ${host}, or pass a provider key by name with \`env: [ANTHROPIC_API_KEY]\` (or OPENAI_API_KEY…) on the host, or configure a provider in opencode.json`
          : undefined,
      slow: (limitMs) =>
        slowLoginCheck({what: "opencode's provider", command: 'opencode auth list', limitMs, where: host, instead: 'configure a provider in opencode.json (read without asking opencode)'})
    }
  }
  return undefined
}

/** gemini has no status command: the host reports what gemini reads there, judged as the local preflight judges it. */
function geminiCheck(executable: string, passed: NodeJS.ProcessEnv, host: string, project: ProjectAuthFacts): AuthCheck {
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
      const type = selected.get('home') ?? project.geminiSelected ?? selected.get('system') ?? selected.get('gemini-home')
      const verdict = geminiAuthVerdict({selected: type, env, envFile: facts.includes('envfile') || project.geminiEnvFile})
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
