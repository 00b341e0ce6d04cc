import {readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {packageRoot} from '../package-root.js'
import {runGit, splitNul} from '../git/run-git.js'
import {driverCommand} from './driver-command.js'
import {driverHealth} from './driver-health.js'
import {findPlans} from './find-plans.js'
import {planPatterns} from './plan-patterns.js'

export interface MergeDriverSetup {
  /** What happened to `.gitattributes`. */
  attributes: 'created' | 'added' | 'unchanged' | 'kept-other-driver'
  /** What happened to `merge.mdplan.driver`, and why when it was repaired or updated. */
  config: 'set' | 'unchanged' | 'repaired' | 'updated' | 'kept-other-driver'
  why?: string
  /** The command the driver runs mdplan with (or the other driver's value, when kept). */
  driver: string
  /** The attributes lines for the plans (present or added). */
  lines: string[]
  /** The plans found in the repository when no pattern was given; empty: none found, the default pattern used. */
  found?: string[]
}

export interface MergeDriverOptions {
  /** The repository's top folder. */
  root: string
  /** Which files are plans (a gitattributes pattern); default: the plans tracked in the repository, else `plans/*.md`. */
  plans?: string
  /** The command that runs mdplan; default: this Node and this mdplan, by absolute path, so no global install is needed. */
  command?: string
  /** Replace another tool's `merge.mdplan.driver`. */
  force?: boolean
}

export const defaultPlansPattern = 'plans/*.md'

/**
 * Make git merge plans with `mdplan merge-driver`: `<pattern> merge=mdplan`
 * lines in `.gitattributes` (added once; lines already there, and a line
 * naming another driver for the same pattern, are never changed) and
 * `merge.mdplan.driver` in the repository's config: a wrapper that falls
 * back to git's text merge when mdplan cannot start. A driver value that is
 * empty or cannot start is repaired; a working one is kept. Idempotent.
 */
export async function installMergeDriver(options: MergeDriverOptions): Promise<MergeDriverSetup> {
  const repo = await runGit(options.root, ['rev-parse', '--git-dir'])
  if (!repo.ok) throw new Error(`${options.root} is not in a git repository: run \`git init\` first, then \`mdplan init --git\``)
  let found: string[] | undefined
  let patterns = options.plans === undefined ? undefined : [options.plans]
  if (!patterns) {
    const {plans, markdown} = await findPlans(options.root)
    found = plans
    // Plans another attribute line already gives a merge driver (ours or another) need no line.
    const uncovered = await withoutMergeAttribute(options.root, plans)
    patterns = plans.length === 0 ? [defaultPlansPattern] : planPatterns(uncovered, markdown)
  }
  const {attributes, lines} = await addAttributes(options.root, patterns)

  const command = options.command ?? defaultCommand()
  const driver = driverCommand(command)
  const existing = await runGit(options.root, ['config', '--local', '--get', 'merge.mdplan.driver'])
  const health = driverHealth(existing.ok ? existing.stdout.replace(/\n$/, '') : undefined)
  let config: MergeDriverSetup['config']
  let why: string | undefined
  if (health.state === 'working') return {attributes, config: 'unchanged', driver: health.command, lines, ...(found ? {found} : {})}
  if (health.state === 'other' && !options.force) return {attributes, config: 'kept-other-driver', driver: existing.stdout.trim(), lines, ...(found ? {found} : {})}
  if (health.state === 'empty') [config, why] = ['repaired', 'it was empty']
  else if (health.state === 'broken') [config, why] = ['repaired', health.why]
  else if (health.state === 'outdated') [config, why] = ['updated', 'it had no fallback to git’s text merge for when mdplan cannot start']
  else config = 'set'
  for (const args of [
    ['config', '--local', 'merge.mdplan.name', 'mdplan: Execution State row by row, the rest as text'],
    ['config', '--local', 'merge.mdplan.driver', driver]
  ]) {
    const result = await runGit(options.root, args)
    if (!result.ok) throw new Error(`git ${args.slice(0, 3).join(' ')} failed: ${result.stderr.trim()}`)
  }
  return {attributes, config, ...(why ? {why} : {}), driver: command, lines, ...(found ? {found} : {})}
}

/** Add a `<pattern> merge=mdplan` line per pattern that has none; a pattern that names another driver is left alone. */
async function addAttributes(root: string, patterns: string[]): Promise<{attributes: MergeDriverSetup['attributes']; lines: string[]}> {
  const file = join(root, '.gitattributes')
  let current: string | undefined
  try {
    current = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  const present = (current ?? '').split(/\r?\n/).map((text) => text.trim().split(/\s+/))
  const add: string[] = []
  let other = false
  for (const pattern of patterns) {
    const forPattern = present.filter((words) => words[0] === pattern)
    if (forPattern.some((words) => words.includes('merge=mdplan'))) continue
    if (forPattern.some((words) => words.some((word) => word.startsWith('merge=') || word === '-merge' || word === '!merge'))) other = true
    else add.push(`${pattern} merge=mdplan`)
  }
  const lines = patterns.map((pattern) => `${pattern} merge=mdplan`)
  if (add.length === 0) return {attributes: other ? 'kept-other-driver' : 'unchanged', lines}
  if (current === undefined) {
    await writeFile(file, add.map((line) => line + '\n').join(''))
    return {attributes: 'created', lines}
  }
  const eol = current.includes('\r\n') ? '\r\n' : '\n'
  const lead = current === '' || current.endsWith('\n') ? '' : eol
  await writeFile(file, current + lead + add.map((line) => line + eol).join(''))
  return {attributes: 'added', lines}
}

/** The plans no attribute line gives a merge driver yet (`git check-attr`, so every rule of .gitattributes counts). */
async function withoutMergeAttribute(root: string, plans: string[]): Promise<string[]> {
  if (plans.length === 0) return []
  const result = await runGit(root, ['check-attr', '-z', 'merge', '--', ...plans])
  if (!result.ok) return plans
  const fields = splitNul(result.stdout)
  const covered = new Set<string>()
  // `<path> NUL merge NUL <value> NUL`
  for (let i = 0; i + 2 < fields.length; i += 3) if (fields[i + 2] !== 'unspecified') covered.add(fields[i]!)
  return plans.filter((plan) => !covered.has(plan))
}

/** `"/usr/bin/node" "/path/to/mdplan/bin/mdplan.js"`: git runs the driver through a shell, so both are quoted. */
function defaultCommand(): string {
  const bin = fileURLToPath(new URL('bin/mdplan.js', packageRoot))
  return `${quote(process.execPath)} ${quote(bin)}`
}

function quote(path: string): string {
  return `"${path.replace(/(["\\$`])/g, '\\$1')}"`
}
