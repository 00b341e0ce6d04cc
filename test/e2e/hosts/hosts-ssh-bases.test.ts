import {randomBytes} from 'node:crypto'
import {existsSync} from 'node:fs'
import {chmod, mkdtemp, readdir, readFile, rm, stat, truncate, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan, startCli} from '../../helpers/run-cli.js'
import {duplicates, logged, readAgentLog} from '../../helpers/agent-log.js'
import {sshdMissing, startSshd, type SshdFixture} from '../../helpers/sshd.js'

// The base commit travels to an ssh host once: its cache repository (<dir>/cache.git) keeps it, later jobs
// carry only what the cache lacks, and a cache that went away is filled again from the whole history.

const missing = sshdMissing()
if (missing) console.log(`hosts-ssh-bases: skipped: ${missing}`)

/** History of this size makes a whole-history bundle easy to tell from a job that carries none. */
const bigBytes = 2_000_000

let sshd: SshdFixture
let wrapper: string
beforeAll(async () => {
  await isolateGitConfig()
  if (missing) return
  sshd = await startSshd(1)
  // An `ssh` first on PATH that counts the bytes each call sends on stdin (the job archives), then is ssh.
  wrapper = await mkdtemp(join(tmpdir(), 'mdplan-ssh-count-'))
  await writeFile(
    join(wrapper, 'ssh'),
    ['#!/bin/sh', 'f=$(mktemp)', 'cat > "$f"', 'wc -c < "$f" >> "$SSH_BYTES_LOG"', 'exec 3< "$f"', 'rm -f "$f"', 'exec /usr/bin/ssh "$@" <&3', ''].join('\n')
  )
  await chmod(join(wrapper, 'ssh'), 0o755)
}, 30_000)
afterAll(() => sshd?.close())

function front(extra: string[] = []): string {
  const h = sshd.hosts[0]!
  return ['commit: true', 'hosts:', `  ${h.alias}: {type: ssh, address: ${h.alias}, config: '${sshd.config}', dir: '${h.dir}', slots: 6}`, `host: ${h.alias}`, ...extra].join('\n')
}

async function setup() {
  const dir = await mkdtemp(join(tmpdir(), 'mdplan-bases-'))
  const bytesLog = join(dir, 'ssh-bytes')
  const env = {
    GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!,
    GIT_CONFIG_NOSYSTEM: '1',
    PATH: `${wrapper}:${process.env.PATH}`,
    SSH_BYTES_LOG: bytesLog
  }
  const sent = async (): Promise<number[]> => (existsSync(bytesLog) ? (await readFile(bytesLog, 'utf8')).split('\n').filter(Boolean).map(Number) : [])
  const repo = await tempRepo({'README.md': '# test\n', 'blob.bin': randomBytes(bigBytes).toString('base64')})
  return {dir, env, sent, repo, log: join(dir, 'agents.log')}
}

describe.skipIf(missing !== undefined)('the base commit on an ssh host (a real sshd on 127.0.0.1)', () => {
  it('six agents started together: the history crosses once, every agent runs once, all work on main', async () => {
    const {env, sent, repo, log} = await setup()
    const ids = ['A', 'B', 'C', 'D', 'E', 'F']
    const agents = Object.fromEntries(ids.map((id) => [id, {creates: [`out/${id}.txt`], script: logged(log, `mkdir -p out\necho ${id} > out/${id}.txt`)}]))
    await repo.commit('plan', {'plan.md': shellPlan(agents, {frontMatter: ['concurrency: 6', front()].join('\n')})})
    const result = await runCli(['run', join(repo.root, 'plan.md'), '--max-attempts', '1'], {cwd: repo.root, env})
    expect(result.exitCode, result.all).toBe(0)
    const side = await readAgentLog(log)
    expect(duplicates(side)).toEqual([])
    expect([...side.starts.keys()].sort()).toEqual(ids.map((id) => `${id}#1`))
    for (const id of ids) expect((await repo.read(`out/${id}.txt`)).trim()).toBe(id)
    // Whole history in six archives would be six times the blob; once, it is about one.
    const bytes = await sent()
    const total = bytes.reduce((a, b) => a + b, 0)
    expect(bytes.filter((n) => n >= bigBytes)).toHaveLength(1)
    expect(total).toBeLessThan(1.5 * bigBytes * (4 / 3))
    const bases = await readdir(join(sshd.hosts[0]!.dir, 'cache.git', 'refs', 'mdplan', 'bases'))
    expect(bases).toContain((await repo.git('rev-parse', 'HEAD~6')).trim())
  }, 120_000)

  it('a chain with commit: true ships each new base as the little the host lacks; a cache removed mid-run is filled again', async () => {
    const {dir, env, sent, repo, log} = await setup()
    const flag = join(dir, 'go')
    // W's first attempt waits for the test to remove the host's cache: its job borrowed objects from it, so its end
    // cannot be committed and the attempt fails (never a silent "no change"). Its retry starts from a base the
    // coordinator thought was there.
    const agents = {
      A: {creates: ['out/A.txt'], script: logged(log, 'mkdir -p out\necho A > out/A.txt')},
      W: {deps: ['A'], script: logged(log, `i=0; while [ "$MDPLAN_ATTEMPT" = 1 ] && [ ! -f '${flag}' ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done`)},
      Z: {deps: ['W'], creates: ['out/Z.txt'], script: logged(log, 'mkdir -p out\necho Z > out/Z.txt')}
    }
    await repo.commit('plan', {'plan.md': shellPlan(agents, {frontMatter: ['concurrency: 2', front()].join('\n')})})
    const run = startCli(['run', join(repo.root, 'plan.md'), '--max-attempts', '2'], {cwd: repo.root, env})
    for (let waited = 0; !(await readAgentLog(log)).lines.some((line) => line.startsWith('start W ')); waited += 50) {
      if (waited > 60_000) throw new Error('W never started')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const launchesBefore = (await sent()).filter((n) => n > 0).length
    await rm(join(sshd.hosts[0]!.dir, 'cache.git'), {recursive: true, force: true})
    await writeFile(flag, '')
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    const side = await readAgentLog(log)
    expect(duplicates(side)).toEqual([])
    expect([...side.starts.keys()].sort()).toEqual(['A#1', 'W#1', 'W#2', 'Z#1'])
    expect((await readTable(join(repo.root, 'plan.md'))).rows.W!.notes).toMatch(/attempt 1: /)
    expect((await repo.read('out/A.txt')).trim()).toBe('A')
    expect((await repo.read('out/Z.txt')).trim()).toBe('Z')
    const archives = (await sent()).filter((n) => n > 0)
    // A: the whole history; W#1: only A's merge (a few KB); W#2: refused for a base the cache lost, then the whole
    // history again; Z: nothing more (its base is W's, back in the cache).
    expect(launchesBefore).toBe(2)
    expect(archives[0]).toBeGreaterThanOrEqual(bigBytes)
    expect(archives[1]).toBeLessThan(100_000)
    expect(archives.slice(2)).toHaveLength(3)
    expect(archives[2]).toBeLessThan(100_000)
    expect(archives[3]).toBeGreaterThanOrEqual(bigBytes)
    expect(archives[4]).toBeLessThan(100_000)
  }, 120_000)

  it('a cache whose objects were damaged between runs is set aside and made anew: the agent runs once and its work is merged', async () => {
    const {env, repo, log} = await setup()
    const plan = (id: string) => shellPlan({[id]: {creates: [`out/${id}.txt`], script: logged(log, `mkdir -p out\necho ${id} > out/${id}.txt`)}}, {frontMatter: ['concurrency: 1', front()].join('\n')})
    await repo.commit('plan', {'plan.md': plan('A')})
    const first = await runCli(['run', 'plan.md', '--max-attempts', '1'], {cwd: repo.root, env})
    expect(first.exitCode, first.all).toBe(0)
    const cache = join(sshd.hosts[0]!.dir, 'cache.git')
    // Every object file truncated: the refs still name bases the cache can no longer give.
    const objects = await readdir(join(cache, 'objects'), {recursive: true})
    for (const name of objects) {
      const file = join(cache, 'objects', String(name))
      if ((await stat(file)).isFile()) await truncate(file, 10)
    }
    await repo.commit('next plan', {'plan.md': plan('B'), 'more.txt': 'more\n'})
    const second = await runCli(['run', 'plan.md', '--max-attempts', '1'], {cwd: repo.root, env})
    expect(second.exitCode, second.all).toBe(0)
    const side = await readAgentLog(log)
    expect(duplicates(side)).toEqual([])
    expect([...side.starts.keys()].sort()).toEqual(['A#1', 'B#1'])
    expect((await repo.read('out/B.txt')).trim()).toBe('B')
    expect((await readdir(sshd.hosts[0]!.dir)).some((name) => name.startsWith('cache.git.broken.'))).toBe(true)
  }, 120_000)
})
