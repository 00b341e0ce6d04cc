import {mkdirSync, writeFileSync} from 'node:fs'
import {join, sep} from 'node:path'

/**
 * Make a folder (and its parents). Every folder mdplan makes goes through
 * here; when it lies in a `.mdplan/` folder (logs, worktrees, the process
 * registry, prompt files), that folder gets a `.gitignore` of `*` first, so
 * it ignores itself: after a first run `git status` shows nothing of it, and
 * neither the user's `.gitignore` nor their git config needs a line for it.
 * Synchronous: it is a few syscalls, and agents launched together must not
 * wait on each other's folders.
 */
export function makeDir(dir: string): void {
  const parts = dir.split(sep)
  const at = parts.lastIndexOf('.mdplan')
  if (at !== -1) {
    const folder = parts.slice(0, at + 1).join(sep) || sep
    mkdirSync(folder, {recursive: true})
    try {
      // `wx`: a `.gitignore` already there (the person's own) is theirs.
      writeFileSync(join(folder, '.gitignore'), '*\n', {flag: 'wx'})
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }
  mkdirSync(dir, {recursive: true})
}
