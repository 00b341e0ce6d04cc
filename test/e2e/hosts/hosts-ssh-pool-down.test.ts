import {existsSync, writeFileSync} from 'node:fs'
import {mkdtemp} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan, startCli} from '../../helpers/run-cli.js'
import {duplicates, logged, readAgentLog} from '../../helpers/agent-log.js'
import {sshdSuite, waitFor} from '../../helpers/sshd-suite.js'

/**
 * A pool with a host that does not answer degrades to the rest of the pool (real sshd daemons on 127.0.0.1;
 * a host "down" is its sshd stopped). Before, one unreachable host of a pool stopped every run at preflight
 * (exit 2, `--host h1` too), and the only way out was to delete it from `hosts:` and reset its rows by hand;
 * a job left on a host that was down when the run ended stayed there for good (a rerun of a finished plan
 * swept nothing, and no command did).
 */
const {missing, gates, gitEnv, fixture, jobFolders} = sshdSuite('hosts-ssh-pool-down', 2)

function front(): string {
  const line = (index: number) => {
    const h = fixture().hosts[index]!
    return `  ${h.alias}: {type: ssh, address: ${h.alias}, config: '${fixture().config}', dir: '${h.dir}', slots: 1, lease: 3s}`
  }
  return ['hosts:', line(0), line(1), 'host: [h1, h2]'].join('\n')
}

/** Warnings of a `--json` run's output that name `host`. */
function warningsAbout(stdout: string, host: string): string[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as {type: string; message?: string})
    .filter((event) => event.type === 'warning' && new RegExp(`\\b${host}\\b`).test(event.message ?? ''))
    .map((event) => event.message!)
}

describe.skipIf(missing !== undefined)('a pool with a host down', () => {
  it('a fresh run with one of its two hosts down runs every agent on the other, with one warning', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-pool-down-'))
    const log = join(dir, 'agents.log')
    const repo = await tempRepo()
    await repo.commit('plan', {
      'plan.md': shellPlan({A: {script: logged(log, 'echo A > A.txt'), creates: ['A.txt']}, B: {script: logged(log, 'echo B > B.txt'), creates: ['B.txt']}}, {frontMatter: front()})
    })
    const plan = join(repo.root, 'plan.md')
    const h2 = fixture().hosts[1]!
    await h2.stop()
    try {
      const result = await runCli(['run', plan, '--json'], {cwd: repo.root, env: gitEnv()})
      expect(result.exitCode, result.all).toBe(0)
      expect(warningsAbout(result.stdout, 'h2'), result.stdout).toHaveLength(1)
      expect(warningsAbout(result.stdout, 'h2')[0]).toMatch(/unreachable|does not answer|did not answer/)
      const side = await readAgentLog(log)
      expect(duplicates(side)).toEqual([])
      expect([...side.starts.keys()].sort()).toEqual(['A#1', 'B#1'])
      const {rows} = await readTable(plan)
      for (const id of ['A', 'B']) {
        expect(rows[id]!.status).toBe('completed')
        expect(rows[id]!.notes).toContain('host: h1')
      }
    } finally {
      await h2.start()
    }
    await repo.cleanup()
  }, 180_000)

  it('with every host of the pool down, the run stops before anything launches and says to check the host or use --host', async () => {
    const repo = await tempRepo()
    const h = fixture().hosts[0]!
    const one = ['hosts:', `  h1: {type: ssh, address: ${h.alias}, config: '${fixture().config}', dir: '${h.dir}', slots: 1, lease: 3s}`, 'host: h1'].join('\n')
    await repo.commit('plan', {'plan.md': shellPlan({A: {script: 'echo A > A.txt', creates: ['A.txt']}}, {frontMatter: one})})
    await h.stop()
    try {
      const result = await runCli(['run', 'plan.md'], {cwd: repo.root, env: gitEnv()})
      expect(result.exitCode, result.all).toBe(2)
      expect(result.stderr).toContain('--host')
      expect(result.stderr).not.toContain('Fix the plan, or see `mdplan validate`')
      expect((await readTable(join(repo.root, 'plan.md'))).rows.A!.status).toBe('pending')
    } finally {
      await h.start()
    }
    await repo.cleanup()
  }, 120_000)

  it('a rerun after a SIGKILL with one pool host down completes on the other; the job left there is swept once it is back (clean --dry-run lists it, a rerun of the finished plan removes it)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-pool-down-'))
    const log = join(dir, 'agents.log')
    const goA = join(dir, 'goA')
    const goB = join(dir, 'goB')
    gates.push(goA, goB)
    const wait = (gate: string, out: string) => `while [ ! -f '${gate}' ]; do sleep 0.05; done\necho ${out} > ${out}.txt`
    const repo = await tempRepo()
    await repo.commit('plan', {
      'plan.md': shellPlan({A: {script: logged(log, wait(goA, 'A')), creates: ['A.txt']}, B: {script: logged(log, wait(goB, 'B')), creates: ['B.txt']}}, {frontMatter: front()})
    })
    const plan = join(repo.root, 'plan.md')
    const [h1, h2] = fixture().hosts
    const first = startCli(['run', plan], {cwd: repo.root, env: gitEnv()})
    await waitFor('A and B to start', async () => (await readAgentLog(log)).starts.size === 2, 90_000)
    first.kill('SIGKILL')
    await first
    const {rows: before} = await readTable(plan)
    const onH2 = ['A', 'B'].find((id) => before[id]!.notes.includes('job: h2 '))!
    const onH1 = onH2 === 'A' ? 'B' : 'A'
    const keyH2 = /job: h2 (mdplan[^\s;]+)/.exec(before[onH2]!.notes)![1]!
    // The job on h2 ends while no run watches; then h2 goes down.
    writeFileSync(onH2 === 'A' ? goA : goB, '')
    await waitFor(`${onH2} to end on h2`, async () => (await readAgentLog(log)).unfinished.length === 1)
    await h2!.stop()
    try {
      const second = startCli(['run', plan, '--json'], {cwd: repo.root, env: gitEnv()})
      let out = ''
      second.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()))
      // h1 has one slot: the agent re-attached there ends first, then the retry of the lost one takes it.
      await waitFor('the rerun to go back to the job on h1', () => out.includes('"type":"launched"') || second.exitCode !== null, 60_000)
      writeFileSync(onH1 === 'A' ? goA : goB, '')
      const result = await second
      expect(result.exitCode, result.all).toBe(0)
      expect(warningsAbout(out, 'h2').some((message) => /unreachable|does not answer|did not answer/.test(message)), out).toBe(true)
      const side = await readAgentLog(log)
      expect(duplicates(side), side.lines.join('\n')).toEqual([])
      expect(side.unfinished).toEqual([])
      const {rows} = await readTable(plan)
      expect(rows[onH1]!.status).toBe('completed')
      expect(rows[onH2]!.status).toBe('completed')
      expect(rows[onH2]!.notes).toContain('host lost: h2')
      expect(rows[onH2]!.notes).toContain('host: h1')
      expect(await jobFolders(0)).toEqual([])
    } finally {
      await h2!.start()
    }
    // h2 is back: its leftover is this plan's, remembered beside the plan.
    expect(await jobFolders(1)).toEqual([keyH2])
    const dry = await runCli(['clean', plan, '--dry-run'], {cwd: repo.root, env: gitEnv()})
    expect(dry.exitCode, dry.all).toBe(0)
    expect(dry.stdout).toContain(keyH2)
    expect(await jobFolders(1)).toEqual([keyH2])
    // A rerun of the finished plan launches nothing, and sweeps.
    const third = await runCli(['run', plan], {cwd: repo.root, env: gitEnv()})
    expect(third.exitCode, third.all).toBe(0)
    expect(await jobFolders(1)).toEqual([])
    expect(h1).toBeDefined()
    expect(existsSync(join(repo.root, '.mdplan'))).toBe(true)
    await repo.cleanup()
  }, 240_000)
})
