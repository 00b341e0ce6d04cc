// Installs the real agent CLIs from the npm registry into a cache folder outside
// the repository, one folder per package and version
// (${MDPLAN_CLIS_CACHE:-${XDG_CACHE_HOME:-~/.cache}/mdplan-clis}/<pkg>@<version>),
// so the pinned and the newest published versions sit side by side and a
// second run installs nothing.
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {join} from 'node:path'

export const pinned = {
  claude: {pkg: '@anthropic-ai/claude-code', version: '2.1.330', bin: 'claude'},
  codex: {pkg: '@openai/codex', version: '0.169.0', bin: 'codex'},
  gemini: {pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini'},
  opencode: {pkg: 'opencode-ai', version: '1.18.33', bin: 'opencode'}
}

export const cacheRoot = process.env.MDPLAN_CLIS_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'mdplan-clis')

/** The newest published version, or undefined when the registry does not answer. */
export function latestVersion(pkg) {
  const view = spawnSync('npm', ['view', pkg, 'version'], {encoding: 'utf8', timeout: 60_000})
  const version = view.status === 0 ? view.stdout.trim() : ''
  return /^\d+\.\d+\.\d+/.test(version) ? version : undefined
}

/** `{bin, version, folder}` once installed, or `{skipped}` saying why not (the registry unreachable, an install that failed). */
export function installClient(client, version) {
  const {pkg, bin} = pinned[client]
  const folder = join(cacheRoot, `${pkg.replace('/', '+')}@${version}`)
  const binPath = join(folder, 'node_modules', '.bin', bin)
  if (installedVersion(folder, pkg) === version && existsSync(binPath)) return {bin: binPath, version, folder}
  mkdirSync(folder, {recursive: true})
  // npm needs a package.json to install into a prefix it did not make.
  if (!existsSync(join(folder, 'package.json'))) writeFileSync(join(folder, 'package.json'), '{"private": true}\n')
  const npm = spawnSync('npm', ['install', '--prefix', folder, '--no-audit', '--no-fund', '--no-save', `${pkg}@${version}`], {encoding: 'utf8', timeout: 900_000})
  if (npm.status !== 0 || !existsSync(binPath)) {
    const why = (npm.stderr || npm.error?.message || '').split('\n').find((line) => /ERR!|error/i.test(line)) ?? `exit ${npm.status}`
    return {skipped: `npm install ${pkg}@${version} failed: ${why.trim()}`}
  }
  return {bin: binPath, version: installedVersion(folder, pkg) ?? version, folder}
}

function installedVersion(folder, pkg) {
  try {
    return JSON.parse(readFileSync(join(folder, 'node_modules', pkg, 'package.json'), 'utf8')).version
  } catch {
    return undefined
  }
}
