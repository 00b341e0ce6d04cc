import fs from 'node:fs'

/** A path that names something other than a regular file (a FIFO, a directory, a device, a socket). */
export class NotRegularFileError extends Error {
  readonly kind: string

  constructor(file: string, kind: string) {
    super(`${file} is ${kind}, not a regular file`)
    this.name = 'NotRegularFileError'
    this.kind = kind
  }
}

/** What a non-regular file is, in words a person knows. */
export function fileKind(info: fs.Stats): string {
  if (info.isFile()) return 'a regular file'
  if (info.isDirectory()) return 'a directory'
  if (info.isFIFO()) return 'a FIFO (named pipe)'
  if (info.isCharacterDevice()) return 'a character device'
  if (info.isBlockDevice()) return 'a block device'
  if (info.isSocket()) return 'a socket'
  return 'a special file'
}

// O_NONBLOCK: opening a FIFO with no writer blocks in open(2) itself, before
// any stat could refuse it; with it, open returns at once and fstat decides.
const flags = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK

/**
 * The bytes of a regular file, read through one descriptor whose fstat
 * decides first, so a FIFO, a device or a directory given where a file is
 * expected fails at once (NotRegularFileError) instead of blocking the
 * process in a read no signal handler can end. Errors of open (ENOENT,
 * EACCES) are thrown as they are.
 */
export async function readRegularFile(file: string): Promise<Buffer> {
  const handle = await fs.promises.open(file, flags)
  try {
    const info = await handle.stat()
    if (!info.isFile()) throw new NotRegularFileError(file, fileKind(info))
    return await handle.readFile()
  } finally {
    await handle.close()
  }
}

/** readRegularFile, synchronously. */
export function readRegularFileSync(file: string): Buffer {
  const fd = fs.openSync(file, flags)
  try {
    const info = fs.fstatSync(fd)
    if (!info.isFile()) throw new NotRegularFileError(file, fileKind(info))
    return fs.readFileSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

/** Why a path could not be read or written, in one phrase: `does not exist`, `permission denied`, `is a FIFO (named pipe), not a regular file`. */
export function fileProblem(error: unknown): string {
  if (error instanceof NotRegularFileError) return `is ${error.kind}, not a regular file`
  const code = (error as NodeJS.ErrnoException).code
  switch (code) {
    case 'ENOENT':
      return 'does not exist (or its folder does not)'
    case 'EACCES':
    case 'EPERM':
      return 'permission denied'
    case 'EISDIR':
      return 'is a directory'
    case 'ENOTDIR':
      return 'has a part of its path that is not a folder'
    case 'EROFS':
      return 'is on a read-only file system'
    case 'ENOSPC':
      return 'no space left on the device'
    default:
      return code ?? (error instanceof Error ? error.message : String(error))
  }
}

/** An fs error as `ENOENT: no such file or directory`, without the (temp) path Node appends. */
export function errnoText(error: unknown): string {
  const {code, message} = error as NodeJS.ErrnoException
  if (code === undefined) return error instanceof Error ? error.message : String(error)
  return (message ?? code).replace(/, \w+ '.*$/s, '')
}
