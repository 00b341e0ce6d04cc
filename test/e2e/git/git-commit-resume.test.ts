import {join} from 'node:path'
import {existsSync} from 'node:fs'
import {writeFile} from 'node:fs/promises'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {commitAgent} from '../../../src/git/commit-agent.js'
import {createWorktree} from '../../../src/git/create-worktree.js'
import {mergeWorktree} from '../../../src/git/merge-worktree.js'
import {markerName} from '../../../src/git/with-commit-marker.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan} from '../../helpers/run-cli.js'

// `commit: true` after a SIGKILL of `mdplan run`: the agent's work must end up committed, whatever
// moment the kill hit. The tables below are exactly what a killed run leaves on disk.

let repo: TempRepo
beforeAll(isolateGitConfig)
afterEach(() => repo?.cleanup())

const gitEnv = (): Record<string, string> => ({GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'})

/** A one-agent `commit: true` plan whose agent writes `out/A.txt` (the same content every attempt). */
async function planRepo(notes: (head: string) => string): Promise<{plan: string; log: string}> {
  repo = await tempRepo({'.gitignore': 'agents.log\n.mdplan/\n'})
  const log = join(repo.root, 'agents.log')
  const text = shellPlan({A: {script: logged(log, 'mkdir -p out && echo A > out/A.txt'), creates: ['out/A.txt']}}, {frontMatter: 'commit: true'})
  // The row the killed run wrote before it spawned the agent: in_progress under its agent ID.
  const plan = join(repo.root, 'plan.md')
  await writeFile(plan, text.replace('| A | pending | — | — | |', `| A | in_progress | A-killed01 | — | ${notes(await repo.git('rev-parse', 'HEAD'))} |`))
  await repo.git('add', 'plan.md')
  await repo.git('commit', '--quiet', '-m', 'plan')
  // The killed run's agent wrote its file before anything committed it.
  await repo.write('out/A.txt', 'A\n')
  return {plan, log}
}

async function expectCommitted(plan: string, log: string): Promise<string> {
  const result = await runCli(['run', plan], {cwd: repo.root, env: gitEnv()})
  expect(result.exitCode, result.all).toBe(0)
  const {rows} = await readTable(plan)
  expect(rows.A!.status).toBe('completed')
  // The relaunch ran once, and its work (the same file the killed attempt wrote) is in a commit.
  expect([...(await readAgentLog(log)).starts]).toEqual([['A#1', 1]])
  expect(await repo.git('status', '--porcelain', '--', 'out')).toBe('')
  expect(await repo.git('log', '-1', '--format=%s', '--', 'out/A.txt')).toBe('test · A: a-step')
  expect(rows.A!.notes).toMatch(/commit: [0-9a-f]{12}/)
  return result.all
}

describe('commit: true, resumed after a SIGKILL', () => {
  it('commits the work of an agent killed after its row went in_progress but before its base was recorded', async () => {
    // The kill came between the spawn and the write that records `base`: no base note in the row.
    const {plan, log} = await planRepo(() => '')
    await expectCommitted(plan, log)
  })

  it('commits the work of an agent whose base was recorded (killed between its exit and its commit)', async () => {
    const {plan, log} = await planRepo((head) => `base: ${head.slice(0, 12)}`)
    await expectCommitted(plan, log)
  })

  it('commits past a stale index.lock that a git commit killed with the run left behind', async () => {
    const {plan, log} = await planRepo(() => '')
    // What `kill -9` of the process group leaves when it hits `git commit`: the lock, and the marker
    // mdplan writes around its own commits, naming a process that is gone.
    await writeFile(join(repo.root, '.git', 'index.lock'), '')
    await writeFile(join(repo.root, '.git', 'mdplan-commit.pid'), `${await deadPid()}\n`)
    const output = await expectCommitted(plan, log)
    expect(output).toContain("git: removed .git/index.lock, left by mdplan's own commit in a run that was killed")
  })
})

describe("stale git locks: only those of mdplan's own killed commit are removed", () => {
  const lock = () => join(repo.root, '.git', 'index.lock')
  const marker = () => join(repo.root, '.git', markerName)

  it("keeps a lock no marker names (a person's git), and the commit fails as git says", async () => {
    repo = await tempRepo()
    await repo.write('src/a.ts', 'a\n')
    await writeFile(lock(), '')
    const result = await commitAgent({root: repo.root, paths: ['src/a.ts'], message: 'A'})
    expect(result.ok).toBe(false)
    expect(!result.ok && result.reason).toMatch(/index\.lock/)
    expect(existsSync(lock())).toBe(true)
  }, 30_000)

  it('keeps a lock while a process the marker names still runs', async () => {
    repo = await tempRepo()
    await repo.write('src/a.ts', 'a\n')
    const {execa} = await import('execa')
    const live = execa('sleep', ['30'])
    try {
      await writeFile(lock(), '')
      await writeFile(marker(), `${await deadPid()}\n${live.pid}\n`)
      const result = await commitAgent({root: repo.root, paths: ['src/a.ts'], message: 'A'})
      expect(result.ok).toBe(false)
      expect(existsSync(lock())).toBe(true)
    } finally {
      live.kill()
      await live.catch(() => undefined)
    }
  }, 30_000)

  it('removes the lock a dead mdplan commit left, says so, commits, and leaves no marker', async () => {
    repo = await tempRepo()
    await repo.write('src/a.ts', 'a\n')
    await writeFile(lock(), '')
    await writeFile(marker(), `${await deadPid()}\n${await deadPid()}\n`)
    const result = await commitAgent({root: repo.root, paths: ['src/a.ts'], message: 'A'})
    expect(result).toEqual({ok: true, commit: expect.stringMatching(/^[0-9a-f]{40}$/), cleared: ['.git/index.lock']})
    expect(await repo.git('show', '--format=', '--name-only', 'HEAD')).toBe('src/a.ts')
    expect(existsSync(marker())).toBe(false)
    expect(existsSync(lock())).toBe(false)
  })

  it('isolation: worktree: removes the stale locks of a killed commit in the worktree and of a killed merge in the main tree', async () => {
    repo = await tempRepo()
    const worktree = await createWorktree({root: repo.root, slug: 'plan', agent: 'A'})
    if (!worktree.ok) throw new Error(worktree.reason)
    await writeFile(join(worktree.path, 'a.txt'), 'a\n')
    const own = (await execGit(worktree.path, 'rev-parse', '--path-format=absolute', '--git-dir')).trim()
    for (const dir of [own, join(repo.root, '.git')]) {
      await writeFile(join(dir, 'index.lock'), '')
      await writeFile(join(dir, markerName), `${await deadPid()}\n`)
    }
    const merged = await mergeWorktree({root: repo.root, worktree: worktree.path, branch: worktree.branch, message: 'A'})
    expect(merged).toMatchObject({ok: true, merged: true, cleared: ['.git/index.lock', join(own, 'index.lock')]})
    expect(await repo.git('show', '--format=', '--name-only', 'HEAD')).toBe('a.txt')
    for (const dir of [own, join(repo.root, '.git')]) expect(existsSync(join(dir, markerName))).toBe(false)
  })
})

async function execGit(cwd: string, ...args: string[]): Promise<string> {
  const {execa} = await import('execa')
  return (await execa('git', args, {cwd})).stdout
}

/** The pid of a process that has ended. */
async function deadPid(): Promise<number> {
  const {execa} = await import('execa')
  const child = execa('true')
  await child
  return child.pid!
}
