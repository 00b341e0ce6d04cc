import {lineDistance, mergeText} from './merge-text.js'

/**
 * Fold an edit found in a file we had replaced into `current`, from the version it was made on: `late.from`,
 * or the version among `ancestry` (recent versions on disk, newest first) closest to what the edit holds.
 */
export function foldLateEdit(ancestry: Buffer[], late: {from: Buffer; to: Buffer}, current: Buffer): Buffer {
  const text = late.to.toString('utf8')
  let parent = late.from.toString('utf8')
  let best = lineDistance(parent, text)
  for (const version of ancestry) {
    if (best === 0) break
    const candidate = version.toString('utf8')
    if (candidate === parent || candidate === text) continue
    const distance = lineDistance(candidate, text)
    if (distance < best) {
      best = distance
      parent = candidate
    }
  }
  return Buffer.from(mergeText(parent, text, current.toString('utf8')), 'utf8')
}
