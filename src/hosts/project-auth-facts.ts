import {envFileNamesGeminiAuth} from '../runners/gemini/env-file-names-gemini-auth.js'
import {geminiSelectedType} from '../runners/gemini/gemini-selected-type.js'
import {opencodeConfigNamesProvider} from '../runners/opencode/opencode-config-names-provider.js'
import {runGit, splitNul} from '../git/run-git.js'

/** What gemini and opencode would read of their auth in an agent's clone on a host. */
export interface ProjectAuthFacts {
  /** The auth type the plan folder's `.gemini/settings.json` selects. */
  geminiSelected?: string
  /** A `.env` (or `.gemini/.env`) from the plan's folder up to the repository's root names a gemini auth variable. */
  geminiEnvFile: boolean
  /** An opencode config from the plan's folder up to the repository's root configures a provider. */
  opencodeConfig: boolean
}

/**
 * The project files of an agent's clone on a host, read here: the clone is made from a commit, so what it
 * holds is what HEAD holds (an untracked `.env` never reaches the host). From the plan's folder (`prefix`,
 * `a/b/` or empty) up to the repository's root, as gemini and opencode look from where they run; the
 * host's preflight reads the folders above the clone and the host's HOME there.
 */
export async function projectAuthFacts(root: string, prefix: string): Promise<ProjectAuthFacts> {
  const folders = [prefix]
  for (let folder = prefix; folder !== ''; ) folders.push((folder = folder.replace(/[^/]*\/$/, '')))
  const settings = `${prefix}.gemini/settings.json`
  const envFiles = folders.flatMap((folder) => [`${folder}.gemini/.env`, `${folder}.env`])
  const configs = folders.flatMap((folder) => ['opencode.json', 'opencode.jsonc', '.opencode/opencode.json', '.opencode/opencode.jsonc'].map((name) => folder + name))
  const listed = await runGit(root, ['ls-tree', '-r', '-z', '--name-only', 'HEAD', '--', settings, ...envFiles, ...configs])
  const present = new Set(listed.ok ? splitNul(listed.stdout) : [])
  const read = async (path: string): Promise<string> => (present.has(path) ? (await runGit(root, ['cat-file', 'blob', `HEAD:${path}`])).stdout : '')
  const texts = async (paths: string[]): Promise<string[]> => Promise.all(paths.filter((path) => present.has(path)).map(read))
  return {
    geminiSelected: geminiSelectedType(await read(settings)),
    geminiEnvFile: (await texts(envFiles)).some(envFileNamesGeminiAuth),
    opencodeConfig: (await texts(configs)).some(opencodeConfigNamesProvider)
  }
}
