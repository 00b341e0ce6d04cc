import {holds, readAll, release, settle} from './open-file.js'

/**
 * What late in-place writers wrote into files our earlier writes replaced (`io.displaced`, each open with
 * the bytes it held when last read). Files still being written into (emptied, not yet filled) stay in
 * `io.displaced`, a few at most; the others are closed.
 */
export function lateEdits(io: {displaced: Array<{fd: number; bytes: Buffer}>}): Array<{from: Buffer; to: Buffer}> {
  const edits: Array<{from: Buffer; to: Buffer}> = []
  const watching: Array<{fd: number; bytes: Buffer}> = []
  for (const displaced of io.displaced) {
    if (holds(displaced.fd, displaced.bytes)) {
      release(displaced.fd)
      continue
    }
    const now = readAll(displaced.fd)
    // Empty: truncated by a writer that has not written yet; look again next time.
    if (now.length === 0 && displaced.bytes.length > 0) {
      watching.push(displaced)
      continue
    }
    if (!now.equals(displaced.bytes)) edits.push({from: displaced.bytes, to: settle(displaced.fd, now)})
    release(displaced.fd)
  }
  // A few at most: a writer stuck that long has lost its race anyway.
  while (watching.length > 4) release(watching.shift()!.fd)
  io.displaced = watching
  return edits
}
