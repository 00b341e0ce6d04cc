import {existsSync} from 'node:fs'
import {chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {execa} from 'execa'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {buildImage, imageTools} from '../../helpers/podman-image.js'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'
import {duplicates, logged, readAgentLog} from '../../helpers/agent-log.js'

// Container hosts against a real podman (the fake engine covers the same cases in test/e2e/hosts/hosts-container.test.ts).
// The image is built once per tag from this machine's own binaries (no registry): sh, git and the coreutils
// the job script uses, with their shared libraries, `podman import`ed from a tarball.
const image = 'localhost/mdplan-test-git:1'
let skip: string | undefined
let env: Record<string, string> = {}
let logDir = ''
let scratch = ''

beforeAll(async () => {
  await setUp()
  if (skip) console.log(`hosts-podman: skipped, ${skip}`)
}, 120_000)

afterAll(async () => {
  if (scratch) await rm(scratch, {recursive: true, force: true})
})

async function setUp(): Promise<void> {
  isolateGitConfig()
  if (!(await execa('podman', ['--version'], {reject: false})).stdout) return void (skip = 'podman is not installed')
  const dir = await mkdtemp(join(tmpdir(), 'mdplan-podman-'))
  scratch = dir
  // What this machine needed (docs: /work/shared/reference/scale-out.md §3c): crun cannot raise the
  // rlimits without CAP_SYS_RESOURCE and refuses hybrid cgroups; runc with lower ulimits works.
  const runc = (await execa('sh', ['-c', 'command -v runc'], {reject: false})).exitCode === 0
  await writeFile(join(dir, 'containers.conf'), ['[containers]', 'default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]', ...(runc ? ['[engine]', 'runtime = "runc"'] : [])].join('\n') + '\n')
  logDir = join(dir, 'log')
  await mkdir(logDir)
  // The container host mounts only the job folder; this `podman` (first on PATH, running the real one) also
  // mounts the agents' log, so launches are counted from inside the containers.
  const bin = join(dir, 'bin')
  await mkdir(bin)
  const real = (await execa('sh', ['-c', 'command -v podman'])).stdout
  await writeFile(join(bin, 'podman'), `#!/bin/sh\nif [ "$1" = run ] && [ "$2" = -d ]; then shift 2; exec '${real}' run -d -v '${logDir}:${logDir}' "$@"; fi\nexec '${real}' "$@"\n`)
  await chmod(join(bin, 'podman'), 0o755)
  env = {GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1', CONTAINERS_CONF: join(dir, 'containers.conf'), PATH: `${bin}:${process.env.PATH}`}
  const podman = (args: string[], input?: string) => execa(real, args, {reject: false, env, ...(input === undefined ? {} : {input})})
  if ((await podman(['image', 'exists', image])).exitCode !== 0) {
    const built = await buildImage(dir, real, image, imageTools, env)
    if (built) return void (skip = `podman cannot import an image here: ${built}`)
  }
  const trial = await podman(['run', '--rm', '--network', 'none', image, 'sh', '-c', 'git --version'])
  if (trial.exitCode !== 0) skip = `podman cannot run a container here: ${String(trial.stderr).trim().split('\n').at(-1)}`
}


async function planRepo(seconds: number) {
  const log = join(await mkdtemp(join(logDir, 'run-')), 'agents.log')
  const deps: Record<string, string[]> = {A: [], B: [], C: ['A'], D: ['A', 'B'], E: ['C']}
  const agents = Object.fromEntries(
    Object.entries(deps).map(([id, on]) => [id, {deps: on, creates: [`out/${id}.txt`], script: logged(log, `sleep ${seconds}\nmkdir -p out\necho ${id} > out/${id}.txt`)}])
  )
  const front = ['concurrency: 3', 'commit: true', 'hosts:', `  sandbox: {type: container, image: ${image}, engine: podman, slots: 2}`, 'host: sandbox'].join('\n')
  const repo = await tempRepo()
  await repo.commit('plan', {'plan.md': shellPlan(agents, {frontMatter: front})})
  return {repo, log, ids: Object.keys(deps), plan: join(repo.root, 'plan.md')}
}

/** mdplan's containers the engine has, running or not (this file's tests run one at a time). */
async function containers(): Promise<string[]> {
  const listed = await execa('podman', ['ps', '-a', '--filter', 'label=mdplan.key', '--format', '{{.Names}}'], {env})
  return listed.stdout.split('\n').filter(Boolean)
}

async function expectAllDone(repo: Awaited<ReturnType<typeof tempRepo>>, plan: string, log: string, ids: string[], before: string[]) {
  const side = await readAgentLog(log)
  expect(duplicates(side), side.lines.join('\n')).toEqual([])
  expect([...side.starts.keys()].sort()).toEqual(ids.map((id) => `${id}#1`))
  const {rows} = await readTable(plan)
  for (const id of ids) {
    expect(rows[id]!.status).toBe('completed')
    expect(rows[id]!.notes).toContain('host: sandbox')
    expect(await repo.read(`out/${id}.txt`)).toBe(`${id}\n`)
  }
  expect(await repo.git('rev-parse', '--abbrev-ref', 'HEAD')).toBe('main')
  const bodies = await repo.git('log', '--format=%B')
  for (const id of ids) expect(bodies.match(new RegExp(`Mdplan-Key: mdplan13-plan-[0-9a-f]{8}-${id}-a1-`, 'g')), id).toHaveLength(1)
  expect(await containers()).toEqual(before)
  const jobs = join(dirname(plan), '.mdplan', 'jobs')
  expect(existsSync(jobs) ? await readdir(jobs) : []).toEqual([])
}

describe('agents in containers (a real podman)', () => {
  it('runs a 5-agent DAG with commit: true, each agent once in its own container, its work committed on main, no container left', async (context) => {
    if (skip) return context.skip()
    const before = await containers()
    const {repo, log, ids, plan} = await planRepo(0.2)
    const result = await runCli(['run', plan, '--json'], {cwd: repo.root, env})
    expect(result.exitCode, result.all).toBe(0)
    await expectAllDone(repo, plan, log, ids, before)
    await repo.cleanup()
  }, 180_000)

  it('a rerun after SIGKILL of the coordinator re-attaches to the running containers without relaunching', async (context) => {
    if (skip) return context.skip()
    const before = await containers()
    const {repo, log, ids, plan} = await planRepo(3)
    const first = startCli(['run', plan, '--json'], {cwd: repo.root, env})
    await waitForTable(plan, (rows) => Object.values(rows).filter((row) => /job: sandbox mdplan13-plan-[0-9a-f]{8}-/.test(row.notes)).length >= 2, 60_000)
    // Both first containers started (their agents wrote their start lines) before the coordinator dies.
    for (let side = await readAgentLog(log); side.starts.size < 2; side = await readAgentLog(log)) await new Promise((resolve) => setTimeout(resolve, 50))
    first.kill('SIGKILL')
    await first
    const second = await runCli(['run', plan, '--json'], {cwd: repo.root, env})
    expect(second.exitCode, second.all).toBe(0)
    await expectAllDone(repo, plan, log, ids, before)
    await repo.cleanup()
  }, 240_000)

  /** One agent in a container; its lines (where it ran, what it saw) go to the mounted log folder. */
  async function oneAgent(body: string[], creates: string[]) {
    const log = join(await mkdtemp(join(logDir, 'run-')), 'agents.log')
    const pwds = join(dirname(log), 'pwds')
    const front = ['hosts:', `  sandbox: {type: container, image: ${image}, engine: podman, slots: 2}`, 'host: sandbox'].join('\n')
    const repo = await tempRepo()
    await repo.commit('plan', {'plan.md': shellPlan({A: {script: logged(log, [`echo "$PWD" >> '${pwds}'`, ...body].join('\n')), creates}}, {frontMatter: front})})
    const pwd = async () => (existsSync(pwds) ? (await readFile(pwds, 'utf8')).split('\n').filter(Boolean) : [])
    return {repo, plan: join(repo.root, 'plan.md'), jobs: join(repo.root, '.mdplan', 'jobs'), pwd}
  }

  it('an answered agent goes on in the clone its first container left, with the work it did before asking', async (context) => {
    if (skip) return context.skip()
    const before = await containers()
    const body = [
      'if [ -z "${MDPLAN_ANSWER:-}" ]; then',
      "  echo 'step 1 of 2' > partial.txt; printf 'RESULT: QUESTION\\nQuestion: go on?\\n'",
      'else echo "partial: $(cat partial.txt 2>&1)" > seen.txt; echo done > final.txt; fi'
    ]
    const {repo, plan, jobs, pwd} = await oneAgent(body, ['partial.txt', 'seen.txt', 'final.txt'])
    expect((await runCli(['run', plan], {cwd: repo.root, env})).exitCode).toBe(1)
    expect((await readTable(plan)).rows.A!.notes).toMatch(/work: sandbox mdplan13-plan-[0-9a-f]{8}-A-a1-/)
    expect((await runCli(['answer', plan, 'A', 'yes'], {cwd: repo.root, env})).exitCode).toBe(0)
    const second = await runCli(['run', plan], {cwd: repo.root, env})
    expect(second.exitCode, second.all).toBe(0)
    const [asking, resumed] = await pwd()
    expect(resumed).toBe(asking)
    expect(await repo.read('seen.txt')).toBe('partial: step 1 of 2\n')
    expect(await repo.read('partial.txt')).toBe('step 1 of 2\n')
    expect((await repo.git('log', '--format=%B')).match(/Mdplan-Key: mdplan13-plan-[0-9a-f]{8}-A-a1-/g)).toHaveLength(1)
    expect(await containers()).toEqual(before)
    expect(existsSync(jobs) ? await readdir(jobs) : []).toEqual([])
    await repo.cleanup()
  }, 180_000)

  it('Ctrl-C removes the container and keeps its folder; the rerun starts the same key again there, with the work', async (context) => {
    if (skip) return context.skip()
    const before = await containers()
    const {repo, plan, jobs, pwd} = await oneAgent(['if [ ! -f partial.txt ]; then echo half > partial.txt; sleep 30; fi', 'echo done > final.txt'], ['partial.txt', 'final.txt'])
    const run = startCli(['run', plan], {cwd: repo.root, env})
    for (const until = Date.now() + 60_000; (await pwd()).length === 0; await new Promise((resolve) => setTimeout(resolve, 50))) {
      if (Date.now() > until) throw new Error('the agent never started')
    }
    run.kill('SIGINT')
    expect((await run).exitCode).toBe(130)
    const key = /job: sandbox (mdplan[^\s;]+)/.exec((await readTable(plan)).rows.A!.notes)![1]!
    expect(await containers()).toEqual(before)
    expect(existsSync(join(jobs, key, 'stopped'))).toBe(true)
    const rerun = await runCli(['run', plan], {cwd: repo.root, env})
    expect(rerun.exitCode, rerun.all).toBe(0)
    expect((await pwd()).length).toBe(2)
    expect(await repo.read('partial.txt')).toBe('half\n')
    expect(await repo.read('final.txt')).toBe('done\n')
    expect(await repo.git('log', '-1', '--format=%B')).toContain(`Mdplan-Key: ${key}`)
    expect(await containers()).toEqual(before)
    expect(existsSync(jobs) ? await readdir(jobs) : []).toEqual([])
    await repo.cleanup()
  }, 180_000)
})
