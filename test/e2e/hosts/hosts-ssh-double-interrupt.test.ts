import {writeFileSync} from 'node:fs'
import {mkdtemp} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {execa} from 'execa'
import {describe, expect, it} from 'vitest'
import {tempRepo} from '../../helpers/git-repo.js'
import {bin, readTable, runCli, shellPlan} from '../../helpers/run-cli.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {sshdSuite, waitFor} from '../../helpers/sshd-suite.js'

/**
 * Ctrl-C pressed twice during a remote run (a real sshd on 127.0.0.1; the signals go to the whole process
 * group, as a terminal sends them). The first asks each job's removal; the second ends mdplan at once, cutting
 * the removal short: the jobs are ended but their folders stay. Before, the rerun found them without a result
 * and counted `attempt 1: killed by SIGKILL`, so with `max_attempts: 1` both agents failed (exit 1). A job
 * mdplan's own cancel ended is an interrupted attempt, as after one Ctrl-C: resumed, no attempt spent.
 */
const {missing, gates, gitEnv, fixture, jobFolders} = sshdSuite('hosts-ssh-double-interrupt', 1)

describe.skipIf(missing !== undefined)('Ctrl-C twice during a remote run', () => {
  it('the rerun resumes both agents as interrupted attempts (max_attempts: 1): they complete, no attempt spent, no job folder left', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-double-int-'))
    const log = join(dir, 'agents.log')
    const go = join(dir, 'go')
    gates.push(go)
    const h = fixture().hosts[0]!
    const front = ['max_attempts: 1', 'hosts:', `  ${h.alias}: {type: ssh, address: ${h.alias}, config: '${fixture().config}', dir: '${h.dir}', slots: 2}`, `host: ${h.alias}`].join('\n')
    // The agents shrug off SIGTERM: the removal waits its 2 s before SIGKILL, and the second Ctrl-C lands in them.
    const script = (id: string) => logged(log, `trap '' TERM\nwhile [ ! -f '${go}' ]; do sleep 0.05; done\necho ${id} > ${id}.txt`)
    const repo = await tempRepo()
    await repo.commit('plan', {'plan.md': shellPlan({A: {script: script('A'), creates: ['A.txt']}, B: {script: script('B'), creates: ['B.txt']}}, {frontMatter: front})})
    const plan = join(repo.root, 'plan.md')
    const first = execa(process.execPath, [bin, 'run', plan], {cwd: repo.root, env: {NO_COLOR: '1', ...gitEnv()}, reject: false, all: true, detached: true})
    await waitFor('A and B to start', async () => (await readAgentLog(log)).starts.size === 2)
    process.kill(-first.pid!, 'SIGINT')
    await new Promise((resolve) => setTimeout(resolve, 700))
    process.kill(-first.pid!, 'SIGINT')
    const interrupted = await first
    expect(interrupted.exitCode, interrupted.all).toBe(130)
    // The removal was cut short: the jobs' folders are still there.
    expect((await jobFolders()).length, interrupted.all).toBe(2)
    const killed = await readTable(plan)
    for (const id of ['A', 'B']) expect(killed.rows[id]!.status).toBe('in_progress')

    writeFileSync(go, '')
    const rerun = await runCli(['run', plan], {cwd: repo.root, env: gitEnv()})
    expect(rerun.exitCode, rerun.all).toBe(0)
    const {rows} = await readTable(plan)
    for (const id of ['A', 'B']) {
      expect(rows[id]!.status, rows[id]!.notes).toBe('completed')
      expect(rows[id]!.notes).not.toMatch(/attempt \d+:/)
      expect(await repo.read(`${id}.txt`)).toBe(`${id}\n`)
    }
    // The second Ctrl-C cut the removal short before its SIGKILL: the agents (deaf to SIGTERM) still ran, and the
    // rerun re-attached to their jobs by key instead of starting them again: each started once, as its first attempt.
    const side = await readAgentLog(log)
    expect([...side.starts].sort(), side.lines.join('\n')).toEqual([['A#1', 1], ['B#1', 1]])
    expect(side.unfinished).toEqual([])
    expect(await jobFolders()).toEqual([])
    await repo.cleanup()
  }, 120_000)
})
