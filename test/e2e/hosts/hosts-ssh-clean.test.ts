import {writeFileSync} from 'node:fs'
import {mkdtemp} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan, startCli} from '../../helpers/run-cli.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {sshdSuite, waitFor} from '../../helpers/sshd-suite.js'

/**
 * `mdplan clean PLAN` removes a plan's finished jobs and their folders on every host, on demand (a real sshd
 * on 127.0.0.1): never a job an `in_progress` row names unless `--force`, never another plan's; `--dry-run`
 * says what it would do and does nothing; a run that goes on keeps its lock. Before, no command did this.
 */
const {missing, gates, gitEnv, fixture, jobFolders} = sshdSuite('hosts-ssh-clean', 1)

describe.skipIf(missing !== undefined)('mdplan clean', () => {
  it('removes finished jobs, keeps the one an in_progress row names unless --force, never touches another plan\'s', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-clean-'))
    const log = join(dir, 'agents.log')
    const go = join(dir, 'go')
    gates.push(go)
    const h = fixture().hosts[0]!
    const front = ['hosts:', `  h1: {type: ssh, address: ${h.alias}, config: '${fixture().config}', dir: '${h.dir}', slots: 3}`, 'host: h1'].join('\n')
    const waiting = (out: string) => logged(log, `while [ ! -f '${go}' ]; do sleep 0.05; done\necho ${out} > ${out}.txt`)
    const repo = await tempRepo()
    await repo.commit('plans', {
      'plan.md': shellPlan({A: {script: waiting('A'), creates: ['A.txt']}, B: {script: logged(log, 'echo B > B.txt'), creates: ['B.txt']}}, {frontMatter: front}),
      'other.md': shellPlan({C: {script: waiting('C'), creates: ['C.txt']}}, {frontMatter: front})
    })
    const plan = join(repo.root, 'plan.md')
    const other = startCli(['run', 'other.md'], {cwd: repo.root, env: gitEnv()})
    const run = startCli(['run', plan], {cwd: repo.root, env: gitEnv()})
    await waitFor('A and C to start, B to complete', async () => {
      const side = await readAgentLog(log)
      return side.starts.has('A#1') && side.starts.has('C#1') && (await readTable(plan)).rows.B!.status === 'completed'
    }, 60_000)
    // A run holds the plan: clean waits for it.
    const busy = await runCli(['clean', plan], {cwd: repo.root, env: gitEnv()})
    expect(busy.exitCode, busy.all).toBe(3)
    run.kill('SIGKILL')
    other.kill('SIGKILL')
    await run
    await other
    const {rows} = await readTable(plan)
    const keyA = /job: h1 (mdplan[^\s;]+)/.exec(rows.A!.notes)![1]!
    const keyC = /job: h1 (mdplan[^\s;]+)/.exec((await readTable(join(repo.root, 'other.md'))).rows.C!.notes)![1]!
    const before = await jobFolders()
    expect(before).toHaveLength(3)
    const keyB = before.find((key) => key !== keyA && key !== keyC)!

    const dry = await runCli(['clean', plan, '--dry-run'], {cwd: repo.root, env: gitEnv()})
    expect(dry.exitCode, dry.all).toBe(0)
    expect(dry.stdout).toContain(keyB)
    expect(dry.stdout).toContain(keyA)
    expect(dry.stdout).toContain('--force')
    expect(dry.stdout).not.toContain(keyC)
    expect((await jobFolders()).sort()).toEqual(before.sort())

    const clean = await runCli(['clean', plan], {cwd: repo.root, env: gitEnv()})
    expect(clean.exitCode, clean.all).toBe(0)
    expect((await jobFolders()).sort()).toEqual([keyA, keyC].sort())
    expect((await readAgentLog(log)).unfinished.sort()).toEqual(['A#1', 'C#1'])

    const forced = await runCli(['clean', plan, '--force'], {cwd: repo.root, env: gitEnv()})
    expect(forced.exitCode, forced.all).toBe(0)
    expect(await jobFolders()).toEqual([keyC])
    writeFileSync(go, '')
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    const side = await readAgentLog(log)
    // A was ended by --force: it never wrote its end; C (another plan's) ran on to its end.
    expect(side.lines.some((line) => line.startsWith('end A ')), side.lines.join('\n')).toBe(false)
    expect(side.lines.some((line) => line.startsWith('end C ')), side.lines.join('\n')).toBe(true)
    await repo.cleanup()
  }, 180_000)
})
