import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {execa} from 'execa'

export interface TextMerge {
  text: string
  /** Conflict regions left with markers. */
  conflicts: number
}

/**
 * An ordinary line-based three-way merge, by `git merge-file`: the tool git
 * itself uses, present wherever a git merge driver runs, so the markers and
 * the rules for what conflicts are exactly what people know from git.
 */
export async function mergeFile(base: string, ours: string, theirs: string): Promise<TextMerge> {
  if (ours === theirs || theirs === base) return {text: ours, conflicts: 0}
  if (ours === base) return {text: theirs, conflicts: 0}
  const dir = await mkdtemp(join(tmpdir(), 'mdplan-merge-'))
  try {
    const files = ['ours', 'base', 'theirs'].map((name) => join(dir, name))
    await Promise.all([ours, base, theirs].map((text, i) => writeFile(files[i]!, text)))
    const result = await execa('git', ['merge-file', '-p', '-L', 'ours', '-L', 'base', '-L', 'theirs', ...files], {
      reject: false,
      stripFinalNewline: false,
      encoding: 'utf8'
    })
    const code = result.exitCode ?? -1
    // 0: clean; 1–127: that many conflicts; otherwise git failed.
    if (code < 0 || code > 127) throw new Error(`git merge-file failed (exit ${code}): ${String(result.stderr).trim()}`)
    return {text: String(result.stdout), conflicts: code}
  } finally {
    await rm(dir, {recursive: true, force: true})
  }
}
