import {createHash} from 'node:crypto'
import {readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import v8 from 'node:v8'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {generatePlan} from '../../../bench/generate-plan.js'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {root, runCli} from '../../helpers/run-cli.js'

// Issue 24: `status`, `validate`, `graph` and the first read of `run` of a plan that did not change
// read the parse from `.mdplan/cache/parse/`, trusted only by the build that wrote it.

const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {version: string}).version
// One build id for both bundles (scripts/bundle.js writes it), so the read-only commands and `run` share entries.
const build = (): string => readFileSync(join(root, 'dist', 'mdplan.build'), 'utf8').trim()

let repo: TempRepo
beforeAll(isolateGitConfig)
afterEach(async () => repo?.cleanup())

function entryFile(dir: string): string {
  const folder = join(dir, '.mdplan', 'cache', 'parse')
  const names = readdirSync(folder)
  expect(names).toHaveLength(1)
  return join(folder, names[0]!)
}

/** Rewrite the entry with a doctored title under the key a build would compute. */
function doctor(dir: string, source: string, digest: string, title: string): void {
  const file = entryFile(dir)
  const entry = v8.deserialize(readFileSync(file)) as {key: string; plan: {title?: string}}
  entry.key = createHash('sha1').update(`${version}\0${digest}\0plan.md\0`).update(source).digest('hex')
  entry.plan.title = title
  writeFileSync(file, v8.serialize(entry))
}

describe('the parse cache', () => {
  it('gives what a parse gives, ignores itself in git, and is trusted only for the same content and build', async () => {
    const source = generatePlan({agents: 60, withState: true, shell: true})
    expect(source.length).toBeGreaterThan(16 * 1024)
    repo = await tempRepo({'plan.md': source})
    await repo.commit('plan')
    const dir = repo.root

    const fresh = await runCli(['status', 'plan.md', '--json'], {cwd: dir, env: {MDPLAN_PARSE_CACHE: '0'}})
    const first = await runCli(['status', 'plan.md', '--json'], {cwd: dir})
    const second = await runCli(['status', 'plan.md', '--json'], {cwd: dir})
    expect(first.exitCode).toBe(0)
    expect(second.stdout).toBe(fresh.stdout)
    expect(first.stdout).toBe(fresh.stdout)
    for (const command of [['validate', 'plan.md'], ['graph', 'plan.md']]) {
      const cached = await runCli(command, {cwd: dir})
      const parsed = await runCli(command, {cwd: dir, env: {MDPLAN_PARSE_CACHE: '0'}})
      expect(cached.stdout).toBe(parsed.stdout)
    }
    // `.mdplan/` ignores itself: nothing new in the user's git status.
    expect(readFileSync(join(dir, '.mdplan', '.gitignore'), 'utf8')).toBe('*\n')
    expect(await repo.git('status', '--porcelain')).toBe('')

    // The entry is what status reads: the same content and build take its title.
    doctor(dir, source, build(), 'from the cache')
    expect(JSON.parse((await runCli(['status', 'plan.md', '--json'], {cwd: dir})).stdout).title).toBe('from the cache')
    // The whole CLI's bundle (the one `run` loads) trusts what the read-only bundle's build wrote.
    expect(JSON.parse((await runCli(['status', 'plan.md', '--json'], {cwd: dir, env: {MDPLAN_READ_BUNDLE: '0'}})).stdout).title).toBe('from the cache')
    // Another build (or version) wrote it: parsed afresh, and the entry replaced.
    doctor(dir, source, '0'.repeat(40), 'from another build')
    expect(JSON.parse((await runCli(['status', 'plan.md', '--json'], {cwd: dir})).stdout)).toEqual(JSON.parse(fresh.stdout))
    // Changed content: parsed afresh (one row edited by hand).
    const edited = source.replace(/^\| (\S+) \| pending \|/m, '| $1 | completed |')
    expect(edited).not.toBe(source)
    writeFileSync(join(dir, 'plan.md'), edited)
    const after = JSON.parse((await runCli(['status', 'plan.md', '--json'], {cwd: dir})).stdout) as {counts: {completed: number}}
    expect(after.counts.completed).toBe(1)
    // Still one entry for the plan (entryFile checks): polling a plan a run keeps writing does not fill the disk.
    entryFile(dir)
  })
})
