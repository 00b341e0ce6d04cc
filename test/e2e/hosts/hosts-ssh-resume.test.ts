import {existsSync} from 'node:fs'
import {mkdtemp, readdir, readFile, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempRepo} from '../../helpers/git-repo.js'
import {readTable, root, runCli, shellPlan, startCli} from '../../helpers/run-cli.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {sshdSuite} from '../../helpers/sshd-suite.js'
import {readArgvLog} from '../../helpers/runner-support.js'

// An agent on an ssh host that asks a question, or is stopped with Ctrl-C, goes on where it was: on the host
// that holds its session, in the folder the session was made in, with the work it left there.
const {missing, gitEnv, fixture} = sshdSuite('hosts-ssh-resume', 2)

async function scratch(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'mdplan-hosts-resume-'))
}

/** The fixture's two hosts, with their slots and the variables they pass; `pool` is the plan's `host:`. */
function hostsFront(slots: [number, number], pool: string, env: string[] = []): string {
  const host = (index: number) => {
    const h = fixture().hosts[index]!
    return `  ${h.alias}: {type: ssh, address: ${h.alias}, config: '${fixture().config}', dir: '${h.dir}', slots: ${slots[index]}${env.length ? `, env: [${env.join(', ')}]` : ''}}`
  }
  return ['hosts:', host(0), host(1), `host: ${pool}`].join('\n')
}

async function jobFolders(): Promise<string[]> {
  const all: string[] = []
  for (const host of fixture().hosts) {
    const jobs = join(host.dir, 'jobs')
    if (existsSync(jobs)) all.push(...(await readdir(jobs)).map((key) => `${host.alias}/${key}`))
  }
  return all
}

async function lines(file: string): Promise<string[]> {
  return existsSync(file) ? (await readFile(file, 'utf8')).split('\n').filter(Boolean) : []
}

describe.skipIf(missing !== undefined)('a remote agent goes on where it was (a real sshd on 127.0.0.1)', () => {
  it('claude: the answered question resumes its session on the host and in the folder it was made in, once', async () => {
    const dir = await scratch()
    const argvLog = join(dir, 'argv.ndjson')
    const env = {
      ...gitEnv(),
      MDPLAN_CLAUDE_BIN: join(root, 'fixtures', 'agents', 'claude'),
      ANTHROPIC_API_KEY: 'fake-key',
      FAKE_SCENARIO: 'question',
      FAKE_STATE_DIR: join(dir, 'sessions'),
      FAKE_ARGV_LOG: argvLog
    }
    const passed = ['ANTHROPIC_API_KEY', 'FAKE_SCENARIO', 'FAKE_STATE_DIR', 'FAKE_ARGV_LOG']
    const plan = (pool: string) =>
      ['---', 'runner: claude', hostsFront([1, 2], pool, passed), '---', '', '# Parallel Plan: resume', '', '## Agents', '', '### A: asks', '- **prompt**: |', '    Build the cache.', ''].join('\n')
    const repo = await tempRepo()
    await repo.commit('plan', {'plan.md': plan('h1')})
    const file = join(repo.root, 'plan.md')

    const first = await runCli(['run', file], {cwd: repo.root, env})
    expect(first.exitCode, first.all).toBe(1)
    const asked = (await readTable(file)).rows.A!
    expect(asked.status).toBe('needs_input')
    expect(asked.notes).toMatch(/work: h1 mdplan\d+-plan-[0-9a-f]{8}-A-a1-[0-9a-f]{6}/)
    // Its session and work stay on h1 while it waits: the sweep at the run's end left its job folder.
    expect(await jobFolders()).toHaveLength(1)

    expect((await runCli(['answer', file, 'A', '2'], {cwd: repo.root, env})).exitCode).toBe(0)
    // A person adds a roomier host to the pool: the answered agent still goes back to the one with its session.
    const text = await readFile(file, 'utf8')
    await writeFile(file, text.replace(/^host: h1$/m, 'host: [h2, h1]'))
    const second = await runCli(['run', file], {cwd: repo.root, env})
    expect(second.exitCode, second.all).toBe(0)

    // Counted from the agent's side: one launch that asked, one that resumed, in the same folder on h1.
    const calls = readArgvLog(argvLog)
    expect(calls).toHaveLength(2)
    const sessionId = calls[0]!.argv[calls[0]!.argv.indexOf('--session-id') + 1]!
    expect(calls[1]!.argv.slice(calls[1]!.argv.indexOf('-r'), calls[1]!.argv.indexOf('-r') + 2)).toEqual(['-r', sessionId])
    expect(calls[1]!.cwd).toBe(calls[0]!.cwd)
    expect(calls[0]!.cwd.startsWith(join(fixture().hosts[0]!.dir, 'jobs'))).toBe(true)
    expect(calls[1]!.argv.at(-1)).toContain('Answer: Option 2: SQLite')
    const {rows, text: after} = await readTable(file)
    expect(rows.A!.status).toBe('completed')
    expect(rows.A!.agentId).toBe(sessionId)
    expect(rows.A!.notes).toContain('host: h1')
    expect(rows.A!.notes).not.toContain('relaunched')
    expect(rows.A!.notes).not.toContain('work:')
    // The person's answer is still where they wrote it.
    expect(after).toMatch(/- \*\*answer\*\*: 2\n/)
    expect(await jobFolders()).toEqual([])
    await repo.cleanup()
  }, 120_000)

  it('shell: the work an agent did before its question is there when it resumes, and comes home in one commit', async () => {
    const dir = await scratch()
    const log = join(dir, 'agents.log')
    const pwds = join(dir, 'pwds')
    const script = logged(
      log,
      [
        `echo "$PWD" >> '${pwds}'`,
        'if [ -z "${MDPLAN_ANSWER:-}" ]; then',
        "  echo 'step 1 of 2' > partial.txt",
        "  printf 'RESULT: QUESTION\\nQuestion: go on?\\nResume State:\\n    step: 1 of 2\\n'",
        'else',
        '  echo "partial: $(cat partial.txt 2>&1)" > seen.txt',
        '  echo done > final.txt',
        'fi'
      ].join('\n')
    )
    const repo = await tempRepo()
    await repo.commit('plan', {'plan.md': shellPlan({A: {script, creates: ['partial.txt', 'seen.txt', 'final.txt']}}, {frontMatter: hostsFront([2, 2], '[h1, h2]')})})
    const file = join(repo.root, 'plan.md')

    const first = await runCli(['run', file], {cwd: repo.root, env: gitEnv()})
    expect(first.exitCode, first.all).toBe(1)
    expect((await readTable(file)).rows.A!.status).toBe('needs_input')
    expect(existsSync(join(repo.root, 'partial.txt'))).toBe(false)
    expect((await runCli(['answer', file, 'A', 'yes'], {cwd: repo.root, env: gitEnv()})).exitCode).toBe(0)
    const second = await runCli(['run', file], {cwd: repo.root, env: gitEnv()})
    expect(second.exitCode, second.all).toBe(0)

    // Two launches in all (one per run), both in the folder the first one ran in.
    expect((await readAgentLog(log)).lines.filter((line) => line.startsWith('start '))).toHaveLength(2)
    const [asking, resumed] = await lines(pwds)
    expect(resumed).toBe(asking)
    expect(await repo.read('seen.txt')).toBe('partial: step 1 of 2\n')
    expect(await repo.read('partial.txt')).toBe('step 1 of 2\n')
    expect(await repo.read('final.txt')).toBe('done\n')
    // One commit for the agent's work (the one its first job made at the question is taken back on the host).
    const bodies = await repo.git('log', '--format=%B')
    expect(bodies.match(/Mdplan-Key: mdplan\d+-plan-[0-9a-f]{8}-A-a1-/g)).toHaveLength(1)
    expect((await readTable(file)).rows.A!.status).toBe('completed')
    expect(await jobFolders()).toEqual([])
    await repo.cleanup()
  }, 120_000)

  it('Ctrl-C: the job folder stays (its processes ended); the rerun starts the same key again there, with the work', async () => {
    const dir = await scratch()
    const log = join(dir, 'agents.log')
    const pwds = join(dir, 'pwds')
    const pids = join(dir, 'pids')
    const script = logged(log, [`echo "$PWD" >> '${pwds}'`, `echo $$ >> '${pids}'`, 'if [ ! -f partial.txt ]; then echo half > partial.txt; sleep 30; fi', 'echo done > final.txt'].join('\n'))
    const repo = await tempRepo()
    await repo.commit('plan', {'plan.md': shellPlan({A: {script, creates: ['partial.txt', 'final.txt']}}, {frontMatter: hostsFront([2, 2], '[h1, h2]')})})
    const file = join(repo.root, 'plan.md')

    const run = startCli(['run', file], {cwd: repo.root, env: gitEnv()})
    for (const until = Date.now() + 60_000; (await lines(pwds)).length === 0; ) {
      if (Date.now() > until) throw new Error('the agent never started')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    await new Promise((resolve) => setTimeout(resolve, 300))
    run.kill('SIGINT')
    const stopped = await run
    expect(stopped.exitCode, stopped.all).toBe(130)
    const row = (await readTable(file)).rows.A!
    expect(row.status).toBe('in_progress')
    const key = /job: (h[12]) (mdplan[^\s;]+)/.exec(row.notes)!
    expect(await jobFolders()).toEqual([`${key[1]}/${key[2]}`])
    const folder = join(fixture().hosts[key[1] === 'h1' ? 0 : 1]!.dir, 'jobs', key[2]!)
    expect(existsSync(join(folder, 'stopped'))).toBe(true)
    expect(await readFile(join(folder, 'work', 'partial.txt'), 'utf8')).toBe('half\n')
    expect(await alive(pids)).toEqual([])

    const rerun = await runCli(['run', file], {cwd: repo.root, env: gitEnv()})
    expect(rerun.exitCode, rerun.all).toBe(0)
    const [before, after] = await lines(pwds)
    expect(after).toBe(before)
    expect(before!.replace(/\/$/, '')).toBe(join(folder, 'work'))
    expect(await repo.read('partial.txt')).toBe('half\n')
    expect(await repo.read('final.txt')).toBe('done\n')
    // The same key, started once more in place: its result is the one merged.
    expect(await repo.git('log', '-1', '--format=%B')).toContain(`Mdplan-Key: ${key[2]}`)
    expect((await readTable(file)).rows.A!.status).toBe('completed')
    expect(await jobFolders()).toEqual([])
    await repo.cleanup()
  }, 120_000)
})

async function alive(pids: string): Promise<number[]> {
  return (await lines(pids)).map(Number).filter((pid) => {
    try {
      process.kill(pid, 0)
      return true
    } catch {
      return false
    }
  })
}
