import fs from 'node:fs'
import path from 'node:path'
import {isAlive} from './is-alive.js'

/**
 * Remove temp files a killed writer left beside `file` (SIGKILL runs no
 * cleanup). Only files of processes that are gone, or of this one (whose
 * writes are synchronous, so none is in flight now). Returns the removed paths.
 */
export function cleanTempFiles(file: string): string[] {
  const folder = path.dirname(file)
  const prefix = `.${path.basename(file)}.`
  const removed: string[] = []
  let names: string[]
  try {
    names = fs.readdirSync(folder)
  } catch {
    return removed
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.mdplan-tmp')) continue
    const match = /^(\d+)\.\d+\.mdplan-tmp$/.exec(name.slice(prefix.length))
    if (!match) continue
    const pid = Number(match[1])
    if (pid !== process.pid && isAlive(pid)) continue
    fs.rmSync(path.join(folder, name), {force: true})
    removed.push(path.join(folder, name))
  }
  return removed
}
