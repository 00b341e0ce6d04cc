import {existsSync} from 'node:fs'
import {basename, dirname, join, sep} from 'node:path'

/**
 * The command that puts optional packages (each `name@range`, as npm takes it) where mdplan, installed in
 * `root`, looks for them: its own `node_modules`, then the folders above it (so beside a global mdplan).
 */
export function installAdvice(root: string, packages: readonly string[], what = 'it'): string {
  const folder = dirname(root.endsWith(sep) ? root.slice(0, -1) : root)
  const names = packages.join(' ')
  if (basename(folder) !== 'node_modules') return `run \`npm install\` in ${root.replace(/[\\/]$/, '')} (a checkout of mdplan has ${what} as ${what === 'it' ? 'a dev dependency' : 'dev dependencies'})`
  if (folder.split(sep).includes('_npx')) return `run mdplan as \`npx -p mdplan ${packages.map((name) => `-p ${name}`).join(' ')} mdplan run <plan>\``
  const project = dirname(folder)
  if (existsSync(join(project, 'package.json'))) return `run \`npm install ${names}\` in ${project}`
  return `run \`npm install -g ${names}\` (${what === 'it' ? 'it' : 'they'} must sit beside mdplan, in ${folder})`
}
