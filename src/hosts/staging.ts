/**
 * A job folder is unpacked in `.staging-<key>-<pid>` beside where it goes, then renamed into place: a submit
 * cut short leaves no half-made job folder, only this. True for such a folder of a key beginning with
 * `prefix` whose run (`pid`) is gone: nothing will finish it.
 */
export function staleStaging(name: string, prefix: string): boolean {
  const match = /^\.staging-(.+)-(\d+)$/.exec(name)
  if (!match || !match[1]!.startsWith(prefix)) return false
  try {
    process.kill(Number(match[2]), 0)
    return false
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'EPERM'
  }
}

/** The staging folder of `key` for this run. */
export function stagingName(key: string): string {
  return `.staging-${key}-${process.pid}`
}
