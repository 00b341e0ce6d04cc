import {existsSync, readFileSync, statSync} from 'node:fs'
import {chmod, mkdir, mkdtemp, open, readdir, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {execa} from 'execa'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {readTable, root, shellPlan, startCli} from '../../helpers/run-cli.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {sshdSuite} from '../../helpers/sshd-suite.js'
import {buildImage, imageTools} from '../../helpers/podman-image.js'

/**
 * Output of any size on remote engines (local-jobs-big-output.test.ts is the local case): an agent that prints a
 * gigabyte on an ssh host (its output streamed back over ssh) or in a container (its output read from the job
 * folder's files) completes once, every byte in the attempt's log, and the coordinator's memory stays bounded.
 * Slow: a gigabyte each way on a loaded machine takes minutes.
 */

beforeAll(isolateGitConfig)

const gigabyte = 1024 * 1024 * 1024

/** A gigabyte of 1 KB lines (1023 characters and a newline), then the line the shell runner reads. */
const bigBody = `yes "$(printf '%01023d' 0)" | head -c ${gigabyte}\necho 'RESULT: SUCCESS'`

/** The process's resident memory now (kB), or undefined once it is gone. */
function rssKb(pid: number): number | undefined {
  try {
    const found = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    // A process that has exited and not been reaped yet has no VmRSS line.
    return found ? Number(found[1]) : undefined
  } catch {
    return undefined
  }
}

/** Run the plan, sampling the coordinator's RSS every 50 ms; its result, peak RSS (MB) and time (ms). */
async function measured(plan: string, cwd: string, env: Record<string, string>) {
  const began = Date.now()
  const run = startCli(['run', plan, '--json'], {cwd, env})
  let peak = 0
  const sampler = setInterval(() => (peak = Math.max(peak, rssKb(run.pid!) ?? 0)), 50)
  const result = await run
  clearInterval(sampler)
  return {result, peakMb: Math.round(peak / 1024), ms: Date.now() - began}
}

/** A once, completed; its log holds every byte of its output and ends with its result line; the coordinator under 300 MB. */
async function expectWhole(repo: TempRepo, plan: string, log: string, run: Awaited<ReturnType<typeof measured>>) {
  expect(run.result.exitCode, run.result.all.slice(-2000)).toBe(0)
  const {rows} = await readTable(plan)
  expect(rows.A!.status).toBe('completed')
  expect(rows.A!.notes).not.toMatch(/attempt \d+:/)
  const side = await readAgentLog(log)
  expect(Object.fromEntries(side.starts)).toEqual({'A#1': 1})
  expect(side.unfinished).toEqual([])
  const file = join(repo.root, '.mdplan', 'logs', 'plan', 'A.1.log')
  const size = statSync(file).size
  expect(size).toBeGreaterThanOrEqual(gigabyte + 'RESULT: SUCCESS\n'.length)
  const handle = await open(file, 'r')
  const tail = Buffer.alloc(4096)
  await handle.read(tail, 0, tail.length, size - tail.length)
  await handle.close()
  expect(tail.toString('utf8')).toMatch(/^0{1023}\nRESULT: SUCCESS\n/m)
  expect(run.peakMb).toBeGreaterThan(0)
  expect(run.peakMb, `peak RSS ${run.peakMb} MB`).toBeLessThan(300)
  return size
}

const proc = existsSync('/proc/self/status')

describe('an agent that prints a gigabyte on an ssh host (a real sshd on 127.0.0.1)', () => {
  const suite = sshdSuite('hosts-big-output-remote (ssh)', 1)
  it.skipIf(suite.missing !== undefined || !proc)('completes once, its whole output in its log, the coordinator under 300 MB', async () => {
    const sshd = suite.fixture()
    const host = sshd.hosts[0]!
    const log = join(await mkdtemp(join(tmpdir(), 'mdplan-big-ssh-')), 'agents.log')
    const front = ['max_attempts: 1', 'hosts:', `  ${host.alias}: {type: ssh, address: ${host.alias}, config: '${sshd.config}', dir: '${host.dir}', slots: 1}`, `host: ${host.alias}`].join('\n')
    const repo = await tempRepo()
    await repo.commit('plan', {'plan.md': shellPlan({A: {script: logged(log, bigBody)}}, {frontMatter: front})})
    const plan = join(repo.root, 'plan.md')
    const run = await measured(plan, repo.root, suite.gitEnv())
    const size = await expectWhole(repo, plan, log, run)
    console.log(`big output (ssh): ${run.ms} ms, log ${size} bytes, coordinator peak RSS ${run.peakMb} MB`)
    expect(await suite.jobFolders()).toEqual([])
    await repo.cleanup()
  }, 900_000)
})

// The container case: a real podman when it runs containers here (an image of this machine's own binaries, as
// test/e2e/hosts/hosts-podman.test.ts builds, with `yes` and `head`), else the fake engine (test/helpers/fake-engine.mjs),
// whose containers are processes of this machine: the output is read from the job folder's files either way.
const image = 'localhost/mdplan-test-big:1'
const tools = [...imageTools, 'yes', 'head']
let engine: {kind: 'podman' | 'fake'; env: Record<string, string>; logDir: string} | undefined
let scratch = ''

describe('an agent that prints a gigabyte in a container', () => {
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'mdplan-big-container-'))
    const podman = await realPodman(scratch)
    if (typeof podman === 'string') {
      console.log(`hosts-big-output-remote (container): podman is not usable here (${podman}); the fake engine runs the case`)
      engine = await fakeEngine(scratch)
    } else engine = podman
  }, 300_000)
  afterAll(async () => {
    if (scratch) await rm(scratch, {recursive: true, force: true})
  })

  it.skipIf(!proc)('completes once, its whole output in its log, the coordinator under 300 MB', async () => {
    const {kind, env, logDir} = engine!
    const log = join(await mkdtemp(join(logDir, 'run-')), 'agents.log')
    const front = ['max_attempts: 1', 'hosts:', `  sandbox: {type: container, image: ${kind === 'podman' ? image : 'localhost/agent:1'}, engine: podman, slots: 1}`, 'host: sandbox'].join('\n')
    const repo = await tempRepo()
    await repo.commit('plan', {'plan.md': shellPlan({A: {script: logged(log, bigBody)}}, {frontMatter: front})})
    const plan = join(repo.root, 'plan.md')
    const run = await measured(plan, repo.root, env)
    const size = await expectWhole(repo, plan, log, run)
    console.log(`big output (container, ${kind}): ${run.ms} ms, log ${size} bytes, coordinator peak RSS ${run.peakMb} MB`)
    const jobs = join(repo.root, '.mdplan', 'jobs')
    expect(existsSync(jobs) ? await readdir(jobs) : []).toEqual([])
    await repo.cleanup()
  }, 900_000)
})

/** A podman that runs this file's image here (built once per tag), or why not. */
async function realPodman(dir: string): Promise<{kind: 'podman'; env: Record<string, string>; logDir: string} | string> {
  if (!(await execa('podman', ['--version'], {reject: false})).stdout) return 'podman is not installed'
  // As test/e2e/hosts/hosts-podman.test.ts sets it up (docs/hosts.md, "When podman cannot start a container"): runc, lower ulimits.
  const runc = (await execa('sh', ['-c', 'command -v runc'], {reject: false})).exitCode === 0
  await writeFile(join(dir, 'containers.conf'), ['[containers]', 'default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]', ...(runc ? ['[engine]', 'runtime = "runc"'] : [])].join('\n') + '\n')
  const logDir = join(dir, 'log')
  await mkdir(logDir)
  // This `podman` (first on PATH) also mounts the agents' log, so the start is counted from inside the container.
  const bin = join(dir, 'bin')
  await mkdir(bin)
  const real = (await execa('sh', ['-c', 'command -v podman'])).stdout
  await writeFile(join(bin, 'podman'), `#!/bin/sh\nif [ "$1" = run ] && [ "$2" = -d ]; then shift 2; exec '${real}' run -d -v '${logDir}:${logDir}' "$@"; fi\nexec '${real}' "$@"\n`)
  await chmod(join(bin, 'podman'), 0o755)
  const env = {GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1', CONTAINERS_CONF: join(dir, 'containers.conf'), PATH: `${bin}:${process.env.PATH}`}
  const podman = (args: string[]) => execa(real, args, {reject: false, env})
  if ((await podman(['image', 'exists', image])).exitCode !== 0) {
    const built = await buildImage(dir, real, image, tools, env)
    if (built) return `it cannot import an image: ${built}`
  }
  const trial = await podman(['run', '--rm', '--network', 'none', image, 'sh', '-c', 'git --version && yes | head -c 1'])
  if (trial.exitCode !== 0) return `it cannot run a container: ${String(trial.stderr).trim().split('\n').at(-1)}`
  return {kind: 'podman', env, logDir}
}


/** The fake engine CLI first on PATH (its containers: detached processes of this machine). */
async function fakeEngine(dir: string): Promise<{kind: 'fake'; env: Record<string, string>; logDir: string}> {
  const bin = join(dir, 'fake-bin')
  const state = join(dir, 'fake-state')
  const logDir = join(dir, 'log')
  await mkdir(bin)
  await mkdir(state)
  await mkdir(logDir, {recursive: true})
  await writeFile(join(bin, 'podman'), `#!/bin/sh\nexec '${process.execPath}' '${join(root, 'test', 'helpers', 'fake-engine.mjs')}' "$@"\n`)
  await chmod(join(bin, 'podman'), 0o755)
  return {kind: 'fake', logDir, env: {GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1', PATH: `${bin}:${process.env.PATH}`, FAKE_ENGINE_STATE: state}}
}
