import {writeFileSync} from 'node:fs'
import {mkdtemp, readFile, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan, startCli} from '../../helpers/run-cli.js'
import {duplicates, logged, readAgentLog} from '../../helpers/agent-log.js'
import {sshdSuite, waitFor} from '../../helpers/sshd-suite.js'

/**
 * A row a killed run left `in_progress` with `job: h1 <key>` goes back to that job, whatever says where
 * new attempts go now (a real sshd on 127.0.0.1, launches counted from the agent's side). Before,
 * `--host local` re-attached on paper only (the launch line said `on h1 as <key>`) and ran a second copy
 * here beside the job on h1, and a plan whose `hosts:` was deleted launched the agent here silently;
 * both exited 0 and left the job's folder on h1 for good.
 */
const {missing, gates, gitEnv, fixture, jobFolders} = sshdSuite('hosts-ssh-live-job', 1)

function hostsLines(): string {
  const h = fixture().hosts[0]!
  return ['hosts:', `  ${h.alias}: {type: ssh, address: ${h.alias}, config: '${fixture().config}', dir: '${h.dir}', slots: 2}`, `host: ${h.alias}`].join('\n')
}

/** A runs on h1 until `go` exists; the coordinator is SIGKILLed while it does. */
async function killedWhileOnH1() {
  const dir = await mkdtemp(join(tmpdir(), 'mdplan-live-job-'))
  const log = join(dir, 'agents.log')
  const go = join(dir, 'go')
  gates.push(go)
  const repo = await tempRepo()
  const text = shellPlan({A: {script: logged(log, `while [ ! -f '${go}' ]; do sleep 0.05; done\necho A > A.txt`), creates: ['A.txt']}}, {frontMatter: ['max_attempts: 1', hostsLines()].join('\n')})
  await repo.commit('plan', {'plan.md': text})
  const plan = join(repo.root, 'plan.md')
  const first = startCli(['run', plan], {cwd: repo.root, env: gitEnv()})
  await waitFor('A to start on h1', async () => (await readAgentLog(log)).starts.size > 0)
  first.kill('SIGKILL')
  await first
  const {rows} = await readTable(plan)
  expect(rows.A!.status).toBe('in_progress')
  const key = /job: h1 (mdplan[^\s;]+)/.exec(rows.A!.notes)?.[1]
  expect(key, rows.A!.notes).toBeDefined()
  return {repo, plan, log, go, key: key!}
}

describe.skipIf(missing !== undefined)('a row whose live job is on a host goes back to it', () => {
  it('`--host local` after a SIGKILL re-attaches to the job on h1 (the override is for new launches): A runs once, its job is collected and removed', async () => {
    const {repo, plan, log, go} = await killedWhileOnH1()
    // Text status names where the job runs (it said only `In progress: A`).
    const status = await runCli(['status', plan], {cwd: repo.root, env: gitEnv()})
    expect(status.stdout).toContain('In progress:   A (on h1)')
    // The job runs on while no coordinator watches: its Duration counts this too.
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    const second = startCli(['run', plan, '--host', 'local', '--json'], {cwd: repo.root, env: gitEnv()})
    let out = ''
    second.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()))
    // Once the rerun's launch is out, a copy started here writes its start within moments.
    await waitFor('the rerun to launch A', () => out.includes('"type":"launched"'))
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    writeFileSync(go, '')
    const result = await second
    expect(result.exitCode, result.all).toBe(0)
    const side = await readAgentLog(log)
    expect(duplicates(side), side.lines.join('\n')).toEqual([])
    expect([...side.starts.keys()]).toEqual(['A#1'])
    const {rows} = await readTable(plan)
    expect(rows.A!.status).toBe('completed')
    expect(rows.A!.notes).toContain('host: h1')
    // Timed from the job's launch (over 5 s: the first run's second, the 3 s without a run, the 2 s before `go`),
    // not from the re-attach (about 2 s).
    expect(Number(/^(\d+)s$/.exec(rows.A!.duration)?.[1]), rows.A!.duration).toBeGreaterThanOrEqual(5)
    expect(await repo.read('A.txt')).toBe('A\n')
    expect(await jobFolders()).toEqual([])
    const report = await runCli(['report', plan], {cwd: repo.root, env: gitEnv()})
    expect(report.stdout).toMatch(/Agent\s+Name\s+Status\s+Attempts\s+Time\s+Host\n/)
    expect(report.stdout).toMatch(/A\s+a-step\s+completed\s+1\s+\d+s\s+h1\n/)
    await repo.cleanup()
  }, 120_000)

  it('with `hosts:` deleted, run and validate refuse at the row (its file:line, the key, what to do), exit 2, plan untouched; declared again, the run collects the job', async () => {
    const {repo, plan, log, go, key} = await killedWhileOnH1()
    const original = await readFile(plan, 'utf8')
    const dropped = original.replace(hostsLines() + '\n', '')
    expect(dropped).not.toBe(original)
    await writeFile(plan, dropped)
    const line = dropped.split('\n').findIndex((text) => text.startsWith('| A |')) + 1
    const column = dropped.split('\n')[line - 1]!.indexOf('job:') + 1

    const validate = await runCli(['validate', plan], {cwd: repo.root, env: gitEnv()})
    expect(validate.exitCode, validate.all).toBe(2)
    expect(validate.all).toContain(`plan.md:${line}:${column}: agent A is in_progress with its job ${key} on host \`h1\``)

    const second = startCli(['run', plan], {cwd: repo.root, env: gitEnv()})
    // The old code launched A here: it would wait for `go` forever, so the test lets it go once a second copy shows.
    await waitFor('the run to end or a second A', async () => second.exitCode !== null || (await readAgentLog(log)).lines.length > 1, 20_000).catch(() => undefined)
    writeFileSync(go, '')
    const refused = await second
    expect(refused.exitCode, refused.all).toBe(2)
    expect(refused.all).toContain(`plan.md:${line}:${column}: agent A is in_progress with its job ${key} on host \`h1\`, which the plan does not declare`)
    expect(refused.all).toContain('Declare `h1` under `hosts:` again')
    expect(refused.all).toContain('[job-host-undeclared]')
    expect(await readFile(plan, 'utf8')).toBe(dropped)
    expect((await readAgentLog(log)).starts.get('A#1')).toBe(1)
    expect(await jobFolders()).toEqual([key])

    // The first fix the message names: the host declared again, the run collects the job (it ended meanwhile).
    await writeFile(plan, original)
    const third = await runCli(['run', plan], {cwd: repo.root, env: gitEnv()})
    expect(third.exitCode, third.all).toBe(0)
    const side = await readAgentLog(log)
    expect(duplicates(side), side.lines.join('\n')).toEqual([])
    expect([...side.starts.keys()]).toEqual(['A#1'])
    expect((await readTable(plan)).rows.A!.status).toBe('completed')
    expect(await repo.read('A.txt')).toBe('A\n')
    expect(await jobFolders()).toEqual([])
    await repo.cleanup()
  }, 120_000)
})
