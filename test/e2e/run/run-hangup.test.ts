import {existsSync, readFileSync} from 'node:fs'
import {mkdtemp} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {execa} from 'execa'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {bin, readTable, runCli, shellPlan} from '../../helpers/run-cli.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'

beforeAll(isolateGitConfig)

const gitEnv = () => ({GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'})
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const text = (file: string): string => (existsSync(file) ? readFileSync(file, 'utf8') : '')
const ids = ['A', 'B', 'C']

async function waitFor(predicate: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await sleep(25)
  }
}

/** Whether an agent still runs: it holds a lock on its own file for as long as it lives. */
async function running(log: string, id: string): Promise<boolean> {
  const free = await execa('flock', ['-n', `${log}.${id}.flock`, 'true'], {reject: false})
  return free.exitCode !== 0
}

describe('a closed terminal (SIGHUP) while agents run (git repository)', () => {
  it('ends the agents, keeps their rows resumable, releases the lock and exits 130; the rerun runs each once', async () => {
    const log = join(await mkdtemp(join(tmpdir(), 'mdplan-hup-log-')), 'agents.log')
    const code = `${log}.code`
    const agents = Object.fromEntries(
      ids.map((id) => [id, {script: `exec 9>>'${log}.${id}.flock'\nflock -n 9 || echo "overlap ${id}" >> '${log}'\n${logged(log, 'sleep 6')}`}])
    )
    const repo = await tempRepo()
    const plan = join(repo.root, 'plan.md')
    await repo.commit('plan', {'plan.md': shellPlan(agents, {frontMatter: 'concurrency: 3'})})

    // A terminal: `script` holds a pty whose shell runs mdplan as a job, as one typed at a prompt. The
    // subshell's trap only lets it live to write mdplan's exit code; mdplan itself gets the default SIGHUP.
    const job = `(trap 'true' HUP; '${process.execPath}' '${bin}' run plan.md; echo $? > '${code}')`
    const terminal = execa('script', ['-qfec', job, '/dev/null'], {cwd: repo.root, env: {...gitEnv(), SHELL: '/bin/sh'}, reject: false})
    await waitFor(() => text(log).split('\n').filter((line) => line.startsWith('start')).length === ids.length)
    // The window is closed: the terminal goes, its pty hangs up, the shell gets SIGHUP and passes it to its job.
    terminal.kill('SIGKILL')
    await terminal
    await waitFor(() => text(code).endsWith('\n'))
    expect(text(code).trim(), text(log)).toBe('130')
    for (const id of ids) expect(await running(log, id), `${id} still running after mdplan exited`).toBe(false)
    expect(existsSync(`${plan}.lock`)).toBe(false)
    const {rows} = await readTable(plan)
    for (const id of ids) expect(rows[id]!.status).toBe('in_progress')
    const before = (await readAgentLog(log)).lines.length

    const second = await runCli(['run', 'plan.md'], {cwd: repo.root, env: gitEnv()})
    expect(second.exitCode, second.all).toBe(0)
    for (const id of ids) expect((await readTable(plan)).rows[id]!.status).toBe('completed')
    const rerun = await readAgentLog(log, before)
    for (const id of ids) expect(rerun.starts.get(`${id}#1`), rerun.lines.join('\n')).toBe(1)
    expect(rerun.unfinished).toEqual([])
    expect(text(log).split('\n').filter((line) => line.startsWith('overlap'))).toEqual([])
    await repo.cleanup()
  }, 60_000)
})
