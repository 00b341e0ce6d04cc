import {existsSync} from 'node:fs'
import {copyFile, mkdtemp, readdir, writeFile} from 'node:fs/promises'
import {tmpdir, userInfo} from 'node:os'
import {join} from 'node:path'
import {execa} from 'execa'
import {describe, expect, it} from 'vitest'
import {tempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan, startCli} from '../../helpers/run-cli.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {sshdSuite, waitFor} from '../../helpers/sshd-suite.js'

/**
 * What a run checks and says about its hosts before anything launches, and what it leaves of its ssh
 * connections (a real sshd on 127.0.0.1). Before: a relative `config:` was read from the current folder
 * (`cd sub && mdplan run ../plans/remote.md` failed); a repository with no commit yet burned a remote agent's
 * attempts in milliseconds; untracked and uncommitted files were silently not sent; the ssh masters of every
 * run of the user shared one folder.
 */
const {missing, gates, gitEnv, fixture} = sshdSuite('hosts-ssh-setup', 1)

function hostLine(config: string): string {
  const h = fixture().hosts[0]!
  return `  h1: {type: ssh, address: ${h.alias}, config: '${config}', dir: '${h.dir}', slots: 2}`
}

describe.skipIf(missing !== undefined)('setting up ssh hosts', () => {
  it('a relative `config:` is read from the plan\'s folder, whatever folder the run starts in', async () => {
    const repo = await tempRepo()
    await repo.commit('plan', {
      'sub/.keep': '',
      'plans/remote.md': shellPlan({A: {script: 'echo A > A.txt', creates: ['A.txt']}}, {frontMatter: ['hosts:', hostLine('ssh_config'), 'host: h1'].join('\n')})
    })
    // Beside the plan (not committed: it is this machine's), and not in the folder the run starts in.
    await copyFile(fixture().config, join(repo.root, 'plans', 'ssh_config'))
    const result = await runCli(['run', '../plans/remote.md'], {cwd: join(repo.root, 'sub'), env: gitEnv()})
    expect(result.exitCode, result.all).toBe(0)
    expect((await readTable(join(repo.root, 'plans', 'remote.md'))).rows.A!.status).toBe('completed')
    await repo.cleanup()
  }, 120_000)

  it('a repository with no commit yet is refused before anything launches, in one line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-nocommit-'))
    await execa('git', ['init', '-q', '-b', 'main'], {cwd: dir})
    await writeFile(join(dir, 'plan.md'), shellPlan({A: {script: 'echo A > A.txt', creates: ['A.txt']}}, {frontMatter: ['hosts:', hostLine(fixture().config), 'host: h1'].join('\n')}))
    const result = await runCli(['run', 'plan.md'], {cwd: dir, env: gitEnv()})
    expect(result.exitCode, result.all).toBe(2)
    const lines = result.stderr.split('\n').filter((line) => /no commit/.test(line))
    expect(lines, result.all).toHaveLength(1)
    expect(result.stderr).not.toContain('Fix the plan, or see `mdplan validate`')
    expect((await readTable(join(dir, 'plan.md'))).rows.A!.status).toBe('pending')
  }, 120_000)

  it('untracked and uncommitted files a host will not get are named in one warning, bounded', async () => {
    const repo = await tempRepo()
    await repo.commit('plan', {'plan.md': shellPlan({A: {script: 'echo A > A.txt', creates: ['A.txt']}}, {frontMatter: ['hosts:', hostLine(fixture().config), 'host: h1'].join('\n')})})
    await repo.write('README.md', '# changed\n')
    for (let index = 0; index < 14; index++) await repo.write(`notes/n${String(index).padStart(2, '0')}.txt`, 'x\n')
    await repo.write('input.txt', 'data\n')
    const result = await runCli(['run', 'plan.md', '--json'], {cwd: repo.root, env: gitEnv()})
    expect(result.exitCode, result.all).toBe(0)
    const warnings = result.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as {type: string; message?: string})
      .filter((event) => event.type === 'warning' && /not committed|uncommitted|untracked/.test(event.message ?? ''))
    expect(warnings, result.stdout).toHaveLength(1)
    const message = warnings[0]!.message!
    expect(message).toContain('README.md')
    expect(message).toContain('input.txt')
    expect(message).toContain('h1')
    // The untracked folder is one name, not fourteen.
    expect(message).toContain('notes/')
    expect(message).not.toContain('n03.txt')
    expect(message).not.toContain('plan.md')
    await repo.cleanup()
  }, 120_000)

  it('the ssh masters live in a folder of the run\'s own, and are closed and that folder removed at its end', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-masters-'))
    const log = join(dir, 'agents.log')
    const go = join(dir, 'go')
    gates.push(go)
    const repo = await tempRepo()
    await repo.commit('plan', {
      'plan.md': shellPlan({A: {script: logged(log, `while [ ! -f '${go}' ]; do sleep 0.05; done\necho A > A.txt`), creates: ['A.txt']}}, {frontMatter: ['hosts:', hostLine(fixture().config), 'host: h1'].join('\n')})
    })
    const run = startCli(['run', 'plan.md'], {cwd: repo.root, env: gitEnv()})
    await waitFor('A to start', async () => (await readAgentLog(log)).starts.has('A#1'))
    const own = join(tmpdir(), `mdplan-ssh-${userInfo().uid}`, String(run.pid))
    expect(existsSync(own), own).toBe(true)
    expect((await readdir(own)).length).toBeGreaterThan(0)
    const masters = async () => (await execa('pgrep', ['-f', `ControlPath=${own}/`], {reject: false})).stdout.split('\n').filter(Boolean)
    expect(await masters()).not.toEqual([])
    await writeFile(go, '')
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    expect(existsSync(own)).toBe(false)
    expect(await masters()).toEqual([])
    await repo.cleanup()
  }, 120_000)
})
