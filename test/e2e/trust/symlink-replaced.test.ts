import {existsSync, lstatSync, readFileSync} from 'node:fs'
import {mkdtemp, rename, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {execa} from 'execa'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan, startCli} from '../../helpers/run-cli.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'

beforeAll(isolateGitConfig)

const gitEnv = () => ({GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'})
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const text = (file: string): string => (existsSync(file) ? readFileSync(file, 'utf8') : '')

async function waitFor(predicate: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await sleep(20)
  }
}

/**
 * A repository whose `plan.md` is a symlink to `plans/plan.md`, a plan of one slow agent A that holds a lock
 * on its own file while it runs (a second A beside it writes `overlap A`).
 */
async function linkedRepo() {
  const log = join(await mkdtemp(join(tmpdir(), 'mdplan-symrep-log-')), 'agents.log')
  const repo = await tempRepo()
  const script = `exec 9>>'${log}.A.flock'\nflock -n 9 || echo "overlap A" >> '${log}'\n${logged(log, 'sleep 4')}`
  await repo.write('plans/plan.md', shellPlan({A: {script}}))
  await symlink('plans/plan.md', join(repo.root, 'plan.md'))
  await repo.commit('plan')
  return {repo, log, link: join(repo.root, 'plan.md'), target: join(repo.root, 'plans', 'plan.md')}
}

/** An editor's save of the link: the file with a new title, written to a temp file renamed over the link. */
async function saveByRename(link: string): Promise<void> {
  await writeFile(`${link}.swp`, text(link).replace('# Parallel Plan: test', '# Parallel Plan: test (edited)'))
  await rename(`${link}.swp`, link)
}

const overlaps = (log: string): string[] => text(log).split('\n').filter((line) => line.startsWith('overlap'))

describe('a save that replaces a symlinked plan with a regular file (git repository)', () => {
  it('`sed -i` on the link while the run goes on: the edit reaches the target, the link is put back, and a second `mdplan run plan.md` exits 3', async () => {
    const {repo, log, link, target} = await linkedRepo()
    const first = startCli(['run', 'plan.md'], {cwd: repo.root, env: gitEnv()})
    await waitFor(() => text(log).includes('start A'))
    await execa('sed', ['-i', 's/^# Parallel Plan: test$/# Parallel Plan: test (edited)/', link])
    expect(lstatSync(link).isSymbolicLink()).toBe(false)
    await sleep(100)
    const second = await runCli(['run', 'plan.md'], {cwd: repo.root, env: gitEnv()})
    expect(second.exitCode, second.all).toBe(3)
    expect(second.all).toContain('is being run by pid')
    const done = await first
    expect(done.exitCode, done.all).toBe(0)
    const side = await readAgentLog(log)
    expect(Object.fromEntries(side.starts), side.lines.join('\n')).toEqual({'A#1': 1})
    expect(overlaps(log)).toEqual([])
    expect(lstatSync(link).isSymbolicLink()).toBe(true)
    expect(text(target)).toContain('# Parallel Plan: test (edited)')
    expect((await readTable(target)).rows.A!.status).toBe('completed')
    await repo.cleanup()
  }, 60_000)

  it('a save by temp + rename, then SIGKILL: the rerun goes through the link put back, re-attaches to the job of A, and keeps the edit', async () => {
    const {repo, log, link, target} = await linkedRepo()
    const first = startCli(['run', 'plan.md'], {cwd: repo.root, env: gitEnv()})
    await waitFor(() => text(log).includes('start A'))
    await saveByRename(link)
    await waitFor(() => lstatSync(link).isSymbolicLink())
    first.kill('SIGKILL')
    await first
    const second = await runCli(['run', 'plan.md'], {cwd: repo.root, env: gitEnv()})
    expect(second.exitCode, second.all).toBe(0)
    // A runs as a job of this machine: the rerun re-attaches to it instead of ending it and starting it again.
    await sleep(300)
    expect(overlaps(log), text(log)).toEqual([])
    expect((await readAgentLog(log)).starts.get('A#1')).toBe(1)
    expect(text(target)).toContain('# Parallel Plan: test (edited)')
    expect((await readTable(target)).rows.A!.status).toBe('completed')
    await repo.cleanup()
  }, 60_000)

  it('a run through the target, SIGKILL, then `mdplan run plan.md` through the link: one plan, one key for its jobs, so the rerun re-attaches to the job of A', async () => {
    const {repo, log, target} = await linkedRepo()
    const first = startCli(['run', 'plans/plan.md'], {cwd: repo.root, env: gitEnv()})
    await waitFor(() => text(log).includes('start A'))
    first.kill('SIGKILL')
    await first
    const second = await runCli(['run', 'plan.md'], {cwd: repo.root, env: gitEnv()})
    expect(second.exitCode, second.all).toBe(0)
    await sleep(300)
    expect(overlaps(log), text(log)).toEqual([])
    const side = await readAgentLog(log)
    expect(Object.fromEntries(side.starts), side.lines.join('\n')).toEqual({'A#1': 1})
    expect((await readTable(target)).rows.A!.status).toBe('completed')
    await repo.cleanup()
  }, 60_000)

  // The job's key is in the target's row, and the plan's key (its jobs' names) comes from its real path: the rerun
  // through the target finds the job the run through the link left and re-attaches to it.
  it('a save the run never saw (it was stopped), then SIGKILL: `mdplan run plan.md` refuses, exit 3, naming the target; `mdplan run plans/plan.md` runs A alone (never beside the job the killed run left)', async () => {
    const {repo, log, link, target} = await linkedRepo()
    const first = startCli(['run', 'plan.md'], {cwd: repo.root, env: gitEnv()})
    await waitFor(() => text(log).includes('start A'))
    first.kill('SIGSTOP')
    await saveByRename(link)
    first.kill('SIGKILL')
    await first
    expect(lstatSync(link).isSymbolicLink()).toBe(false)
    const second = await runCli(['run', 'plan.md'], {cwd: repo.root, env: gitEnv()})
    expect(second.exitCode, second.all).toBe(3)
    expect(second.all).toContain(`was a symlink to ${target}`)
    expect((await readAgentLog(log)).starts.get('A#1')).toBe(1)
    const third = await runCli(['run', 'plans/plan.md'], {cwd: repo.root, env: gitEnv()})
    expect(third.exitCode, third.all).toBe(0)
    await sleep(300)
    expect(overlaps(log), text(log)).toEqual([])
    const side = await readAgentLog(log)
    expect(Object.fromEntries(side.starts), side.lines.join('\n')).toEqual({'A#1': 1})
    expect(side.unfinished).toEqual([])
    expect((await readTable(target)).rows.A!.status).toBe('completed')
    await repo.cleanup()
  }, 60_000)
})
