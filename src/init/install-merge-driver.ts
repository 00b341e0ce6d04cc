import {readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {packageRoot} from '../package-root.js'
import {runGit} from '../git/run-git.js'

export interface MergeDriverSetup {
  /** What happened to `.gitattributes` and to the git config. */
  attributes: 'created' | 'added' | 'unchanged' | 'kept-other-driver'
  config: 'set' | 'unchanged' | 'kept-other-driver'
  /** The driver command in the config (after the run). */
  driver: string
  /** The attributes line for the plans. */
  line: string
}

export interface MergeDriverOptions {
  /** The repository's top folder. */
  root: string
  /** Which files are plans (a gitattributes pattern). */
  plans?: string
  /** The command that runs mdplan; default: this Node and this mdplan, by absolute path, so no global install is needed. */
  command?: string
  /** Replace a different `merge.mdplan.driver`. */
  force?: boolean
}

export const defaultPlansPattern = 'plans/*.md'

/**
 * Make git merge plans with `mdplan merge-driver`: a `<plans> merge=mdplan`
 * line in `.gitattributes` (added once; lines already there, and a plans line
 * naming another driver, are never changed) and `merge.mdplan.driver` in the
 * repository's config. Idempotent.
 */
export async function installMergeDriver(options: MergeDriverOptions): Promise<MergeDriverSetup> {
  const repo = await runGit(options.root, ['rev-parse', '--git-dir'])
  if (!repo.ok) throw new Error(`${options.root} is not in a git repository: run \`git init\` first, then \`mdplan init --git\``)
  const pattern = options.plans ?? defaultPlansPattern
  const line = `${pattern} merge=mdplan`
  const file = join(options.root, '.gitattributes')
  let current: string | undefined
  try {
    current = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }

  let attributes: MergeDriverSetup['attributes']
  const lines = (current ?? '').split(/\r?\n/).map((text) => text.trim().split(/\s+/))
  const forPattern = lines.filter((words) => words[0] === pattern)
  if (forPattern.some((words) => words.includes('merge=mdplan'))) attributes = 'unchanged'
  else if (forPattern.some((words) => words.some((word) => word.startsWith('merge=') || word === '-merge' || word === '!merge'))) attributes = 'kept-other-driver'
  else if (current === undefined) {
    await writeFile(file, line + '\n')
    attributes = 'created'
  } else {
    const eol = current.includes('\r\n') ? '\r\n' : '\n'
    const lead = current === '' || current.endsWith('\n') ? '' : eol
    await writeFile(file, current + lead + line + eol)
    attributes = 'added'
  }

  const driver = `${options.command ?? defaultCommand()} merge-driver %O %A %B %P`
  const existing = await runGit(options.root, ['config', '--local', '--get', 'merge.mdplan.driver'])
  const had = existing.ok ? existing.stdout.trim() : undefined
  let config: MergeDriverSetup['config'] = 'unchanged'
  if (had !== driver) {
    if (had !== undefined && !options.force && !had.includes('merge-driver')) config = 'kept-other-driver'
    else {
      for (const args of [
        ['config', '--local', 'merge.mdplan.name', 'mdplan: Execution State row by row, the rest as text'],
        ['config', '--local', 'merge.mdplan.driver', driver]
      ]) {
        const result = await runGit(options.root, args)
        if (!result.ok) throw new Error(`git ${args.slice(0, 3).join(' ')} failed: ${result.stderr.trim()}`)
      }
      config = 'set'
    }
  }
  return {attributes, config, driver: config === 'kept-other-driver' ? had! : driver, line}
}

/** `"/usr/bin/node" "/path/to/mdplan/bin/mdplan.js"`: git runs the driver through a shell, so both are quoted. */
function defaultCommand(): string {
  const bin = fileURLToPath(new URL('bin/mdplan.js', packageRoot))
  return `${quote(process.execPath)} ${quote(bin)}`
}

function quote(path: string): string {
  return `"${path.replace(/(["\\$`])/g, '\\$1')}"`
}
