import {foldersUp, type AuthCheck, type ProjectFiles, type RemoteAuthInput} from '../host-auth.js'
import {slowLoginCheck} from '../login-check-limit.js'
import {opencodeConfigNamesProvider} from './opencode-config-names-provider.js'
import {opencodeNoProvider} from './opencode-no-provider.js'

/** A name a host passes by name (set here), so sent as a word: letters, digits and `_` only. */
const safeName = /^[A-Za-z_][A-Za-z0-9_]*$/

/** The opencode configs of a project, from the plan's folder (`prefix`) up to the repository's root, as opencode looks from where it runs. */
export function opencodeProjectAuthFiles(prefix: string): string[] {
  return foldersUp(prefix).flatMap((folder) => ['opencode.json', 'opencode.jsonc', '.opencode/opencode.json', '.opencode/opencode.jsonc'].map((name) => folder + name))
}

/** Whether an opencode config the agents' clone will hold configures a provider. */
function projectConfiguresProvider(project: ProjectFiles): boolean {
  return opencodeProjectAuthFiles(project.prefix).some((path) => opencodeConfigNamesProvider(project.texts.get(path) ?? ''))
}

/**
 * opencode on a host: `opencode auth list` there, asked with the variables the host passes set to a
 * stand-in, unless a provider is configured in the project's opencode.json or in a config passed by name.
 */
export function opencodeRemoteAuth({executable, passed, host, project}: RemoteAuthInput): AuthCheck | undefined {
  // A provider configured in the project's opencode.json, or in a config passed by name: nothing to ask.
  if (projectConfiguresProvider(project) || opencodeConfigNamesProvider(passed.OPENCODE_CONFIG_CONTENT ?? '')) return undefined
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
