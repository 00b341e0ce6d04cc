import {statSync} from 'node:fs'
import {dirname} from 'node:path'
import {fileKind, fileProblem} from '../util/read-regular-file.js'

/**
 * Why `dir` cannot be where agents run, in one phrase, or undefined when it is
 * an existing folder. Checked before anything else so a mistyped `--cwd` is
 * never created (the run would make `.mdplan/` in it) and nothing runs in it.
 */
export function directoryProblem(dir: string): string | undefined {
  try {
    const info = statSync(dir)
    return info.isDirectory() ? undefined : `is ${fileKind(info)}, not a folder`
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : fileProblem(error)
  }
}

/**
 * Why a file cannot be written at `file`, in one phrase, or undefined when it
 * may be: the file itself is a FIFO, a folder or a device, or the nearest
 * existing folder on its path is a file. The write itself can still fail
 * (permissions, a read-only or virtual file system); its error is reported then.
 */
export function outPathProblem(file: string): string | undefined {
  try {
    const info = statSync(file)
    if (!info.isFile()) return `is ${fileKind(info)}, not a regular file`
    return undefined
  } catch {
    // Not there yet: look at the folders it would go in.
  }
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    try {
      const info = statSync(dir)
      return info.isDirectory() ? undefined : `cannot be made: ${dir} is ${fileKind(info)}, not a folder`
    } catch {
      if (dirname(dir) === dir) return undefined
    }
  }
}
