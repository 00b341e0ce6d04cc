import fs from 'node:fs'

/**
 * The file a plan path writes go to: the target of a symlink (so the link
 * stays a link and the plan it points at records progress), the path itself
 * otherwise. Temp file, rename, write mutex and run lock all go beside it.
 */
export function planTarget(file: string): string {
  try {
    return fs.lstatSync(file).isSymbolicLink() ? fs.realpathSync(file) : file
  } catch {
    return file
  }
}
