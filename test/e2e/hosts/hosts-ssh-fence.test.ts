import {writeFileSync} from 'node:fs'
import {mkdtemp, readFile, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempRepo} from '../../helpers/git-repo.js'
import {readTable, shellPlan, startCli} from '../../helpers/run-cli.js'
import {duplicates, logged, readAgentLog} from '../../helpers/agent-log.js'
import {sshdSuite, waitFor} from '../../helpers/sshd-suite.js'

/**
 * One copy of an agent at a time, across hosts (real sshd daemons on 127.0.0.1; both "hosts" are this
 * machine, so the agents share one lock file). Each attempt takes a `flock` on it and writes `overlap` when
 * an earlier copy still holds it: counted from the agents' side.
 *
 * Before: (a) an agent a SIGKILLed run left on h1, set back to `pending` and moved to h2, ran on h2 beside
 * its old job, which the sweep never visited (it visited only the hosts the plan used now); (b) in a one-host
 * pool, the lost attempt's retry was submitted the moment the host answered, while the lost job's end waited
 * 1–10 s: two copies at once on the same host.
 */
const {missing, gates, gitEnv, fixture, jobFolders} = sshdSuite('hosts-ssh-fence', 2)

/** A's script: start/end lines, a lock held while it runs (`overlap` when it is taken), then a wait for `go`. */
function fencedScript(dir: string): {script: string; log: string; go: string} {
  const log = join(dir, 'agents.log')
  const lock = join(dir, 'agent.lock')
  const go = join(dir, 'go')
  gates.push(go)
  const body = [
    `exec 9>>'${lock}'`,
    `flock -n 9 || printf 'overlap %s %s\\n' "$MDPLAN_AGENT" "$MDPLAN_ATTEMPT" >> '${log}'`,
    `while [ ! -f '${go}' ]; do sleep 0.05; done`,
    'echo A > A.txt'
  ].join('\n')
  return {script: logged(log, body), log, go}
}

function hostLine(index: number, extra = ''): string {
  const h = fixture().hosts[index]!
  return `  ${h.alias}: {type: ssh, address: ${h.alias}, config: '${fixture().config}', dir: '${h.dir}', slots: 1${extra}}`
}

describe.skipIf(missing !== undefined)('an agent runs as one copy at a time, whichever host its jobs are on', () => {
  it('(a) SIGKILL while A runs on h1, A set back to pending and moved to h2: the rerun ends the job on h1 before A starts on h2', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-fence-'))
    const {script, log, go} = fencedScript(dir)
    const repo = await tempRepo()
    const front = ['hosts:', hostLine(0), hostLine(1)].join('\n')
    await repo.commit('plan', {'plan.md': shellPlan({A: {script, creates: ['A.txt'], host: 'h1'}}, {frontMatter: front})})
    const plan = join(repo.root, 'plan.md')
    const first = startCli(['run', plan], {cwd: repo.root, env: gitEnv()})
    await waitFor('A to start on h1', async () => (await readAgentLog(log)).starts.has('A#1'))
    first.kill('SIGKILL')
    await first
    const key = /job: h1 (mdplan[^\s;]+)/.exec((await readTable(plan)).rows.A!.notes)?.[1]
    expect(key).toBeDefined()
    expect(await jobFolders(0)).toEqual([key])

    // The person's edit between runs: A back to pending (its notes cleared too), and moved to h2.
    const text = await readFile(plan, 'utf8')
    const edited = text.replace('- **host**: h1', '- **host**: h2').replace(/^\| A \|.*$/m, '| A | pending | — | — | |')
    expect(edited).not.toBe(text)
    await writeFile(plan, edited)

    const second = startCli(['run', plan], {cwd: repo.root, env: gitEnv()})
    await waitFor('A to start again', async () => (await readAgentLog(log)).lines.filter((line) => line.startsWith('start ')).length >= 2 || second.exitCode !== null, 60_000)
    // Let the gate go only once the new copy has had time to look for the old one's lock.
    await new Promise((resolve) => setTimeout(resolve, 500))
    writeFileSync(go, '')
    const result = await second
    expect(result.exitCode, result.all).toBe(0)
    // Had the old copy lived on, it writes its end now that the gate is open.
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    const side = await readAgentLog(log)
    expect(side.lines.filter((line) => line.startsWith('overlap')), side.lines.join('\n')).toEqual([])
    expect(duplicates(side), side.lines.join('\n')).toEqual([])
    expect(side.lines.filter((line) => line.startsWith('end ')).map((line) => line.split(' ').slice(1, 3).join('#')), side.lines.join('\n')).toEqual(['A#2'])
    const {rows} = await readTable(plan)
    expect(rows.A!.status).toBe('completed')
    expect(rows.A!.notes).toContain('host: h2')
    expect(await repo.read('A.txt')).toBe('A\n')
    expect(await jobFolders(0)).toEqual([])
    expect(await jobFolders(1)).toEqual([])
    await repo.cleanup()
  }, 180_000)

  it('(b) a one-host pool loses its host past the lease and gets it back: the retry starts only once the lost job is ended', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-fence-'))
    const {script, log, go} = fencedScript(dir)
    const repo = await tempRepo()
    const front = ['hosts:', hostLine(0, ', lease: 3s'), 'host: h1'].join('\n')
    await repo.commit('plan', {'plan.md': shellPlan({A: {script, creates: ['A.txt']}}, {frontMatter: front})})
    const plan = join(repo.root, 'plan.md')
    const h1 = fixture().hosts[0]!
    const run = startCli(['run', plan], {cwd: repo.root, env: gitEnv()})
    await waitFor('A to start on h1', async () => (await readAgentLog(log)).starts.has('A#1'))
    await h1.stop()
    await waitFor('A\'s attempt 1 to be lost', async () => (await readTable(plan)).rows.A!.notes.includes('attempt 1: host lost: h1'), 60_000)
    await h1.start()
    await waitFor('A to start again', async () => (await readAgentLog(log)).lines.filter((line) => line.startsWith('start ')).length >= 2 || run.exitCode !== null, 60_000)
    await new Promise((resolve) => setTimeout(resolve, 500))
    writeFileSync(go, '')
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    const side = await readAgentLog(log)
    expect(side.lines.filter((line) => line.startsWith('overlap')), side.lines.join('\n')).toEqual([])
    expect(duplicates(side), side.lines.join('\n')).toEqual([])
    expect(side.lines.filter((line) => line.startsWith('end ')).map((line) => line.split(' ').slice(1, 3).join('#')), side.lines.join('\n')).toEqual(['A#2'])
    const {rows} = await readTable(plan)
    expect(rows.A!.status).toBe('completed')
    expect(await jobFolders(0)).toEqual([])
    await repo.cleanup()
  }, 180_000)
})
