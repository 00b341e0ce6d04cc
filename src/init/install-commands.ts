import {mkdir, readFile, rename, rm, writeFile} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import {isPristine, stampTemplate} from './stamp-template.js'
import {packageRoot} from '../package-root.js'

export type InstallAction = 'created' | 'unchanged' | 'updated' | 'skipped-modified' | 'overwritten' | 'removed' | 'kept-retired'

export interface InstallResult {
  /** Relative to `root`, with `/`. */
  path: string
  action: InstallAction
}

export interface InstallOptions {
  /** The project folder to install into. */
  root: string
  /** Replace files the person changed. */
  force?: boolean
}

/** Bump when a template changes: the marker records which version a file came from. */
export const templateVersion = 3

/**
 * What `mdplan init` installs: the Claude Code command as a skill (where
 * current Claude Code looks first) and the Codex skill.
 */
export const installTargets = [
  {template: 'claude-skill.md', path: '.claude/skills/execute-parallel-plan/SKILL.md'},
  {template: 'codex-skill.md', path: '.agents/skills/execute-parallel-plan/SKILL.md'}
] as const

/** Where an older mdplan put a file that a target above replaces: two commands of one name would both load. */
export const retiredPaths = ['.claude/commands/execute-parallel-plan.md'] as const

const templates = new URL('templates/', packageRoot)

/**
 * Install the `/execute-parallel-plan` command for Claude Code and the
 * `execute-parallel-plan` skill for Codex. Idempotent: a file already as
 * mdplan would write it is left alone; an older mdplan file nobody edited is
 * upgraded; a file the person changed is kept unless `force`. The command an
 * older mdplan installed under `.claude/commands/` goes when nobody edited it
 * (or with `force`).
 */
export async function installCommands(options: InstallOptions): Promise<InstallResult[]> {
  const results: InstallResult[] = []
  for (const target of installTargets) {
    const template = await readFile(new URL(target.template, templates), 'utf8')
    const wanted = stampTemplate(template, 'execute-parallel-plan', templateVersion)
    const file = join(options.root, target.path)
    const current = await readText(file)
    let action: InstallAction
    if (current === undefined) action = 'created'
    else if (current.replace(/\r\n/g, '\n') === wanted) action = 'unchanged'
    else if (isPristine(current)) action = 'updated'
    else if (options.force) action = 'overwritten'
    else action = 'skipped-modified'
    if (action !== 'unchanged' && action !== 'skipped-modified') await writeAtomic(file, wanted)
    results.push({path: target.path, action})
  }
  for (const path of retiredPaths) {
    const current = await readText(join(options.root, path))
    if (current === undefined) continue
    const action: InstallAction = isPristine(current) || options.force ? 'removed' : 'kept-retired'
    if (action === 'removed') await rm(join(options.root, path))
    results.push({path, action})
  }
  return results
}

async function readText(file: string): Promise<string | undefined> {
  return readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw error
  })
}

async function writeAtomic(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), {recursive: true})
  const temp = `${file}.${process.pid}.tmp`
  await writeFile(temp, text)
  await rename(temp, file)
}
