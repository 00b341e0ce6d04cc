import {createHash} from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import v8 from 'node:v8'
import {version} from '../version.js'
import {parsePlan} from './parse-plan.js'
import type {Plan} from './types.js'

/** Below this a parse costs about what reading an entry does (tens of ms): small plans leave no trace. */
const minLength = 16 * 1024

interface Entry {
  key: string
  plan: Plan
}

/**
 * `parsePlan`, remembered under `.mdplan/cache/parse/` by the content's hash:
 * `status`, `validate`, `graph` and the first read of `run` of a plan that
 * did not change since the last of them cost a read of a file instead of a
 * parse (about 0.8 s at 1000 agents). One entry per plan, so polling a plan
 * that a run keeps writing does not fill the disk.
 *
 * Trusted only by the build that wrote it: the key holds mdplan's version and
 * the digest of the running bundle (bin/load-cli.js sets it), so another
 * version, or a rebuild of the same one, parses afresh. Without a bundle
 * (tests importing the sources, benches importing dist/), or with
 * `MDPLAN_PARSE_CACHE=0`, there is no cache; nor for a plan under 16 KB. A folder that cannot be written
 * is no error: the plan is parsed as before.
 */
export function cachedParse(source: string, file: string, cwd: string): Plan {
  const build = (globalThis as {__mdplanBuild?: string}).__mdplanBuild
  if (!build || source.length < minLength || process.env.MDPLAN_PARSE_CACHE === '0') return parsePlan(source, file)
  const key = createHash('sha1').update(`${version}\0${build}\0${file}\0`).update(source).digest('hex')
  const folder = path.join(cwd, '.mdplan', 'cache', 'parse')
  const entryFile = path.join(folder, `${createHash('sha1').update(path.resolve(cwd, file)).digest('hex')}.v8`)
  const cached = read(entryFile, key)
  if (cached) {
    // The text was left out of the entry: it is the source, less its byte-order mark.
    cached.text = cached.bom ? source.slice(1) : source
    return cached
  }
  const plan = parsePlan(source, file)
  // Not a plan (no agents): nothing worth keeping, and no folder left beside a file that was only looked at.
  if (plan.agents.length === 0) return plan
  write(cwd, folder, entryFile, {key, plan: {...plan, text: ''}})
  return plan
}

function read(entryFile: string, key: string): Plan | undefined {
  try {
    const entry = v8.deserialize(fs.readFileSync(entryFile)) as Entry
    return entry.key === key ? entry.plan : undefined
  } catch {
    return undefined
  }
}

function write(cwd: string, folder: string, entryFile: string, entry: Entry): void {
  const temp = `${entryFile}.${process.pid}.tmp`
  try {
    const mdplan = path.join(cwd, '.mdplan')
    if (!fs.existsSync(mdplan)) {
      fs.mkdirSync(mdplan)
      // `.mdplan/` ignores itself: nothing for the user's `git status` or `.gitignore`.
      fs.writeFileSync(path.join(mdplan, '.gitignore'), '*\n', {flag: 'wx'})
    }
    fs.mkdirSync(folder, {recursive: true})
    fs.writeFileSync(temp, v8.serialize(entry))
    fs.renameSync(temp, entryFile)
  } catch {
    fs.rmSync(temp, {force: true})
  }
}
