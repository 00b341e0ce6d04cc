import fs from 'node:fs'
import {mkdtemp} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {execa, execaSync} from 'execa'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {driverCommand} from '../../../src/init/driver-command.js'
import {installMergeDriver} from '../../../src/init/install-merge-driver.js'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'

const root = fileURLToPath(new URL('../../..', import.meta.url))
const fixtures = path.join(root, 'fixtures/merge')
const bin = path.join(root, 'bin/mdplan.js')
const which = (name: string): string => execaSync('sh', ['-c', `command -v ${name}`]).stdout.trim()

let repos: TempRepo[] = []
beforeAll(isolateGitConfig)
afterEach(async () => {
  await Promise.all(repos.map((repo) => repo.cleanup()))
  repos = []
})

/** A PATH with git and sh only: no mdplan, and no node. */
async function barePath(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mdplan-path-'))
  for (const name of ['git', 'sh']) fs.symlinkSync(which(name), path.join(dir, name))
  return dir
}

/** A fixture's base, theirs and ours committed, then `git merge theirs` with `env`. */
async function merge(name: string, setup: (repo: TempRepo) => Promise<void>, env: Record<string, string> = {}) {
  const repo = await tempRepo({'.gitattributes': 'plans/*.md merge=mdplan\n'})
  repos.push(repo)
  await setup(repo)
  const put = (side: string) => fs.copyFileSync(path.join(fixtures, name, `${side}.md`), path.join(repo.root, 'plans/plan.md'))
  fs.mkdirSync(path.join(repo.root, 'plans'))
  put('base')
  await repo.commit('base')
  await repo.git('checkout', '--quiet', '-b', 'theirs')
  put('theirs')
  await repo.commit('theirs')
  await repo.git('checkout', '--quiet', 'main')
  put('ours')
  await repo.commit('ours')
  const result = await execa(which('git'), ['-c', 'user.name=T', '-c', 'user.email=t@example.com', 'merge', '--no-edit', 'theirs'], {
    cwd: repo.root,
    reject: false,
    env: {...env, GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'},
    extendEnv: !('PATH' in env)
  })
  return {repo, result, text: fs.readFileSync(path.join(repo.root, 'plans/plan.md'), 'utf8')}
}

/** Both branches' rows are in the file: theirs' completion of C and ours' of A and B. */
function expectBothSides(text: string): void {
  expect(text).toMatch(/^<<<<<<< ours$/m)
  expect(text).toContain('| C | completed | sh-3c4d5e6f | 40s | result: schema |')
  expect(text).toContain('| B | completed | sh-2b3c4d5e | 4m 12s | result: added the route |')
}

describe('a merge driver that cannot start never keeps our side alone', () => {
  it('mdplan not on git’s PATH: git merge-file writes markers; resolve then merges as the driver would have', async () => {
    const PATH = await barePath()
    const {repo, result, text} = await merge('disjoint', (repo) => installMergeDriver({root: repo.root, command: 'mdplan'}).then(() => undefined), {PATH, HOME: process.env.HOME ?? '/'})
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain('mdplan merge-driver did not run (mdplan: exit 127): plans/plan.md merged as text by git merge-file instead')
    expectBothSides(text)
    const resolve = await execa(process.execPath, [bin, 'resolve', 'plans/plan.md'], {cwd: repo.root, reject: false})
    expect(resolve.exitCode, resolve.stdout + resolve.stderr).toBe(0)
    expect(fs.readFileSync(path.join(repo.root, 'plans/plan.md'), 'utf8')).toBe(fs.readFileSync(path.join(fixtures, 'disjoint/expected.md'), 'utf8'))
  })

  it('a driver pointing at a node that was deleted: markers, both sides kept', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'mdplan-node-'))
    const node = path.join(dir, 'node')
    fs.copyFileSync(process.execPath, node)
    fs.chmodSync(node, 0o755)
    const {result, text} = await merge('disjoint', async (repo) => {
      await installMergeDriver({root: repo.root, command: `"${node}" "${bin}"`})
      fs.rmSync(dir, {recursive: true})
    })
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain(`mdplan merge-driver did not run (${node}: exit 127)`)
    expectBothSides(text)
  })

  it('a driver pointing at an mdplan that was moved (node starts, exits 1): markers, not ours alone', async () => {
    const {result, text} = await merge('disjoint', (repo) => installMergeDriver({root: repo.root, command: `"${process.execPath}" "/nonexistent/mdplan/bin/mdplan.js"`}).then(() => undefined))
    expect(result.exitCode).toBe(1)
    expectBothSides(text)
  })

  it('a real conflict from mdplan (exit 1) is mdplan’s: its named row markers, no fallback', async () => {
    const {result, text} = await merge('requeue', (repo) => installMergeDriver({root: repo.root, command: `"${process.execPath}" "${bin}"`}).then(() => undefined))
    expect(result.exitCode).toBe(1)
    expect(result.stderr).not.toContain('did not run')
    expect(text).toContain('<<<<<<< ours: agent B: completed on ours, re-queued (pending) on theirs')
    expect(text).not.toMatch(/^<<<<<<< ours$/m)
  })
})

describe('mdplan init --git repairs a driver that cannot run, and keeps one that can', () => {
  const init = (repo: TempRepo) => execa(process.execPath, [bin, 'init', '--git', '--dir', repo.root], {cwd: repo.root, reject: false})
  const driver = (repo: TempRepo) => repo.git('config', '--get', 'merge.mdplan.driver')
  const ours = driverCommand(`"${process.execPath}" "${bin}"`)

  it.each([
    ['empty', '', 'repaired: it was empty'],
    ['a stale node', '"/nonexistent/node" "/x/bin/mdplan.js" merge-driver %O %A %B %P', 'repaired: /nonexistent/node does not exist'],
    ['a wrapper around a stale node', driverCommand('"/nonexistent/node" "/x/bin/mdplan.js"'), 'repaired: /nonexistent/node does not exist'],
    ['mdplan not on PATH', 'mdplan-not-installed-here merge-driver %O %A %B %P', 'repaired: mdplan-not-installed-here is not on PATH'],
    ['a working driver without the fallback', `"${process.execPath}" "${bin}" merge-driver %O %A %B %P`, 'updated: it had no fallback']
  ])('%s', async (_, value, said) => {
    const repo = await tempRepo()
    repos.push(repo)
    await repo.git('config', 'merge.mdplan.driver', value)
    const result = await init(repo)
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toContain(`git config merge.mdplan.driver: ${said}`)
    expect(await driver(repo)).toBe(ours)
    expect((await init(repo)).stdout).toContain('git config merge.mdplan.driver: unchanged')
  })

  it('a working wrapper with another mdplan’s paths is kept as it is', async () => {
    const repo = await tempRepo()
    repos.push(repo)
    const elsewhere = driverCommand(`"${process.execPath}" "${path.join(root, 'bin/execute-parallel-plan.js')}"`)
    await repo.git('config', 'merge.mdplan.driver', elsewhere)
    const result = await init(repo)
    expect(result.stdout).toContain('git config merge.mdplan.driver: unchanged')
    expect(await driver(repo)).toBe(elsewhere)
  })
})
