import {existsSync, rmSync, writeFileSync} from 'node:fs'
import {mkdtemp, readdir} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'
import {duplicates, logged, readAgentLog} from '../../helpers/agent-log.js'
import {sshdMissing, startSshd, type SshdFixture} from '../../helpers/sshd.js'
import {fakeSlurm} from '../../helpers/fake-slurm.js'
import {startFakeK8s} from '../../helpers/fake-k8s.js'

/**
 * A run that loses its lock while its agent runs on a remote host, and the run that took the lock over
 * has re-attached to that agent's job by the key in its row. The old owner used to end its remote jobs
 * on the loss as Ctrl-C does: it killed the job the new owner followed (ssh: its process group and
 * folder; Slurm: scancel; Kubernetes: the Job deleted), and the new owner ran the agent a second time.
 * Now it stops following and leaves the job running. Real processes in a real git repository, an ssh
 * host on a real sshd (127.0.0.1); launches counted from the agent's side.
 */
const missing = sshdMissing()
if (missing) console.log(`trust-lost-lock-remote: skipped the ssh case: ${missing}`)

const gitEnv = () => ({GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1', MDPLAN_LOCK_STALE_MS: '2000'})

let sshd: SshdFixture | undefined
beforeAll(async () => {
  await isolateGitConfig()
  if (!missing) sshd = await startSshd(1)
}, 30_000)
afterAll(() => sshd?.close())

async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  for (const deadline = Date.now() + ms; !(await check()); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** The `--json` events of one type for one agent (complete lines only). */
function events(stdout: string, type: string, agent: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{') && line.endsWith('}'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((event) => event.type === type && event.agent === agent)
}

interface Remote {
  /** Front matter: `hosts:` with one host named `name`, and `host: name`. */
  front: string[]
  name: string
  env: Record<string, string>
  /** The host still runs the job of `key` (nothing cancelled it). */
  expectRunning(key: string): Promise<void>
  /** After the new owner's whole run: nothing of the plan left on the host. */
  expectClean?(): Promise<void>
}

/**
 * A (on the remote host) waits for a `go` file; B depends on A. Run 1 starts A, then stalls (SIGSTOP, as a
 * run on a suspended laptop or behind a hung disk does) while its lock is taken over: run 2 starts, reads
 * A's row and re-attaches to A's job. Run 1 resumes, finds its lock lost, exits 3. Then A is let finish.
 */
async function takeOver(remote: Remote): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'mdplan-lostlock-'))
  const go = join(dir, 'go')
  const log = join(dir, 'agents.log')
  const repo = await tempRepo()
  const agents = {
    A: {creates: ['a.txt'], script: logged(log, `while [ ! -f '${go}' ] && [ -d '${dir}' ]; do sleep 0.05; done\necho a > a.txt`)},
    B: {deps: ['A'], creates: ['b.txt'], script: logged(log, 'echo b > b.txt')}
  }
  await repo.commit('plan', {'plan.md': shellPlan(agents, {frontMatter: ['concurrency: 1', ...remote.front].join('\n')})})
  const plan = join(repo.root, 'plan.md')
  const env = {...remote.env, ...gitEnv()}
  const first = startCli(['run', 'plan.md', '--json'], {cwd: repo.root, env})
  let second: ReturnType<typeof startCli> | undefined
  try {
    await scenario()
  } finally {
    // A failed expectation leaves nothing waiting: the agent finishes (or sees its folder gone), the runs end.
    writeFileSync(go, '')
    first.kill('SIGCONT')
    first.kill('SIGKILL')
    second?.kill('SIGKILL')
    await Promise.all([first, second])
    await repo.cleanup()
    rmSync(dir, {recursive: true, force: true})
  }

  async function scenario(): Promise<void> {
    const rows = await waitForTable(plan, (rows) => new RegExp(`job: ${remote.name} mdplan\\d+-plan-`).test(rows.A?.notes ?? ''), 30_000)
    const key = new RegExp(`job: ${remote.name} ([^\\s;]+)`).exec(rows.A!.notes)![1]!
    expect(key).toMatch(/^mdplan\d+-plan-[0-9a-f]{8}-A-a1-/)
    await waitFor('A to start on the host', async () => (await readAgentLog(log)).starts.has('A#1'))

    const pid = first.pid!
    process.kill(pid, 'SIGSTOP')
    try {
      rmSync(`${plan}.lock`, {recursive: true, force: true})
      second = startCli(['run', 'plan.md', '--json'], {cwd: repo.root, env})
      let said = ''
      second.stdout!.on('data', (chunk: Buffer) => (said += chunk.toString('utf8')))
      await waitFor('run 2 to re-attach to A', () => events(said, 'launched', 'A').some((event) => event.job === key))
    } finally {
      process.kill(pid, 'SIGCONT')
    }

    // Run 1 finds its lock lost: exit 3, and A's job is left running for run 2.
    const lost = await first
    expect(lost.exitCode, lost.all).toBe(3)
    await remote.expectRunning(key)
    expect((await readAgentLog(log)).unfinished).toEqual(['A#1'])
    expect(lost.stdout).toMatch(/the run lock was lost[^"]*remote jobs are left running/)

    writeFileSync(go, '')
    const done = await second!
    expect(done.exitCode, done.all).toBe(0)
    const side = await readAgentLog(log)
    expect(duplicates(side), side.lines.join('\n')).toEqual([])
    expect(side.starts).toEqual(new Map([['A#1', 1], ['B#1', 1]]))
    expect(side.unfinished).toEqual([])
    const table = await readTable(plan)
    expect(table.rows.A!.status).toBe('completed')
    expect(table.rows.B!.status).toBe('completed')
    expect(table.rows.A!.notes).not.toMatch(/attempt \d/)
    // Recorded once: by run 2, from the job run 1 left; merged once.
    expect(events(done.stdout, 'completed', 'A')).toHaveLength(1)
    expect(events(lost.stdout, 'completed', 'A')).toHaveLength(0)
    expect((await repo.git('log', '--format=%B')).match(/Mdplan-Key: mdplan\d+-plan-[0-9a-f]{8}-A-a/g)).toHaveLength(1)
    expect(await repo.read('a.txt')).toBe('a\n')
    await remote.expectClean?.()
  }
}

describe('a run that loses its lock leaves its remote jobs to the new owner', () => {
  it.skipIf(missing !== undefined)('ssh (a real sshd): the job keeps running, the agent runs once, its result is merged and recorded once', async () => {
    const h = sshd!.hosts[0]!
    const folders = async (): Promise<string[]> => (existsSync(join(h.dir, 'jobs')) ? await readdir(join(h.dir, 'jobs')) : [])
    await takeOver({
      front: ['hosts:', `  ${h.alias}: {type: ssh, address: ${h.alias}, config: '${sshd!.config}', dir: '${h.dir}', slots: 2}`, `host: ${h.alias}`],
      name: h.alias,
      env: {},
      expectRunning: async (key) => expect(await folders()).toEqual([key]),
      expectClean: async () => expect(await folders()).toEqual([])
    })
  }, 120_000)

  it('Slurm (the fake): no scancel; the agent runs once', async () => {
    const slurm = await fakeSlurm()
    await takeOver({
      front: ['hosts:', `  hpc: {type: slurm, dir: '${slurm.shared}', partition: debug, slots: 2}`, 'host: hpc'],
      name: 'hpc',
      env: slurm.env,
      expectRunning: async () => expect((await slurm.state()).cancelled ?? []).toEqual([])
    })
    expect((await slurm.state()).started).toEqual([1, 2])
  }, 120_000)

  it('Kubernetes (the fake API server): the Job is not deleted; the agent runs once', async () => {
    const fake = await startFakeK8s()
    try {
      await takeOver({
        front: ['hosts:', '  kube: {type: kubernetes, image: localhost/agent:1, slots: 2}', 'host: kube'],
        name: 'kube',
        env: {KUBECONFIG: fake.kubeconfig},
        expectRunning: async () => expect(fake.deleted).toEqual([])
      })
    } finally {
      await fake.close()
    }
  }, 120_000)
})
