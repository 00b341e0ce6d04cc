import {accessSync, constants} from 'node:fs'
import {delimiter, join} from 'node:path'

/** The executable `name` on `PATH`, or undefined when no folder of it holds one. */
export function findOnPath(name: string, path = process.env.PATH ?? ''): string | undefined {
  for (const folder of path.split(delimiter)) {
    if (folder === '') continue
    const file = join(folder, name)
    try {
      accessSync(file, constants.X_OK)
      return file
    } catch {}
  }
  return undefined
}
