import {basename, dirname} from 'node:path'
import {gitReason, runGit, splitNul} from '../git/run-git.js'

/** The versions of a file git's index holds during a conflicted merge (stage 1 base, 2 ours, 3 theirs). */
export interface IndexStages {
  /** Undefined when both sides added the file (no common ancestor). */
  base?: string
  ours?: string
  theirs?: string
  /** The file's path from the repository's top folder. */
  path: string
  /** `.git/…` folder of this work tree (for what mdplan keeps there). */
  gitDir: string
}

export type StagesRead = {ok: true; stages: IndexStages} | {ok: false; reason: string; notConflicted?: boolean}

/**
 * Read the three stages of `file` from git's index: what a merge left there
 * when it stopped on a conflict, whatever the work tree file holds now.
 * A file with no unmerged entries is not in a conflicted merge.
 */
export async function readIndexStages(file: string): Promise<StagesRead> {
  const cwd = dirname(file)
  const listed = await runGit(cwd, ['ls-files', '-u', '-z', '--full-name', '--', basename(file)])
  if (!listed.ok) return {ok: false, reason: gitReason(listed, 'git ls-files')}
  const stages: Partial<Record<'1' | '2' | '3', string>> = {}
  let path = ''
  for (const entry of splitNul(listed.stdout)) {
    // `<mode> <object> <stage>\t<path>`
    const match = /^\d+ ([0-9a-f]+) ([123])\t(.*)$/s.exec(entry)
    if (!match) continue
    stages[match[2] as '1' | '2' | '3'] = match[1]!
    path = match[3]!
  }
  if (stages['2'] === undefined && stages['3'] === undefined) {
    return {ok: false, notConflicted: true, reason: 'git’s index holds no conflict for it (no merge stopped on this file)'}
  }
  const gitDir = await runGit(cwd, ['rev-parse', '--absolute-git-dir'])
  if (!gitDir.ok) return {ok: false, reason: gitReason(gitDir, 'git rev-parse')}
  const read = async (object: string | undefined): Promise<string | undefined> => {
    if (object === undefined) return undefined
    const blob = await runGit(cwd, ['cat-file', 'blob', object])
    if (!blob.ok) throw new Error(gitReason(blob, `git cat-file ${object}`))
    return blob.stdout
  }
  const [base, ours, theirs] = await Promise.all([read(stages['1']), read(stages['2']), read(stages['3'])])
  return {ok: true, stages: {...(base === undefined ? {} : {base}), ...(ours === undefined ? {} : {ours}), ...(theirs === undefined ? {} : {theirs}), path, gitDir: gitDir.stdout.trim()}}
}
