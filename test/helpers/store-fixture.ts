import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export const storeFixtures = path.resolve('fixtures/store')

/** Copy `fixtures/store/<name>/plan.md` into a fresh temp folder; returns the copy's path. */
export function copyFixture(name: string): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), `mdplan-store-${name}-`))
  const file = path.join(folder, 'plan.md')
  fs.copyFileSync(path.join(storeFixtures, name, 'plan.md'), file)
  return file
}

/** A clock that ticks one second per call, from a fixed instant. */
export function tickingClock(start = Date.UTC(2026, 1, 1, 10, 0, 0)): () => Date {
  let tick = 0
  return () => new Date(start + 1000 * tick++)
}

export {random} from '../../bench/random.js'
