import {mkdtemp, readFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan} from '../../helpers/run-cli.js'
import {duplicates, logged, readAgentLog} from '../../helpers/agent-log.js'

/**
 * An account's cap (docs/limits.md, "Accounts"), through the real CLI in a real git repository: six shell
 * agents at `concurrency: 6` with `accounts: {shell: 2}`, each writing `start`/`end` lines to one log. Counted
 * from that log: never more than two between their start and end, and each ran once. A wrong `accounts:`
 * stops `validate` and `run` with the line and column, the plan untouched.
 */
const made: TempRepo[] = []
beforeAll(isolateGitConfig)
afterEach(async () => {
  for (const one of made.splice(0)) await one.cleanup()
})

/** A repository holding `plan.md`, removed after the test. */
async function planRepo(text: string): Promise<TempRepo> {
  const repo = await tempRepo({'plan.md': text})
  made.push(repo)
  return repo
}

const ids = ['A', 'B', 'C', 'D', 'E', 'F']

describe('a cap per account', () => {
  it('runs at most the cap of six shell agents at once on `accounts: {shell: 2}`, each once; validate says the cap applies', async () => {
    const log = join(await mkdtemp(join(tmpdir(), 'mdplan-accounts-log-')), 'agents.log')
    // Long enough that six launched at once would overlap: the cap, not luck, keeps them to two.
    const script = logged(log, 'sleep 1\necho "RESULT: SUCCESS"')
    const repo = await planRepo(shellPlan(Object.fromEntries(ids.map((id) => [id, {script}])), {frontMatter: 'concurrency: 6\naccounts:\n  shell: 2'}))
    const plan = join(repo.root, 'plan.md')

    const validate = await runCli(['validate', 'plan.md'], {cwd: repo.root})
    expect(validate.exitCode, validate.all).toBe(0)
    expect(validate.stdout).toContain('plan.md:3:1: warning: concurrency 6 would run 6 of the 6 `shell` agents at once, but their account allows 2: 2 on local (front matter `accounts`); the account cap applies [concurrency-over-account]')

    const run = await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(run.exitCode, run.all).toBe(0)
    expect(run.all).toContain('concurrency 6 would run 6 of the 6 `shell` agents at once')
    expect(run.all).toContain(': 6 agents, concurrency 6, account caps: shell on local 2\n')
    const side = await readAgentLog(log)
    expect(side.peak, side.lines.join('\n')).toBeLessThanOrEqual(2)
    expect(side.peak).toBeGreaterThanOrEqual(1)
    expect(duplicates(side)).toEqual([])
    expect([...side.starts.keys()].map((key) => key.split('#')[0]).sort()).toEqual(ids)
    expect(side.unfinished).toEqual([])
    const table = await readTable(plan)
    expect(ids.map((id) => table.rows[id]!.status)).toEqual(ids.map(() => 'completed'))
  }, 120_000)

  it('refuses a wrong `accounts:` (a cap of 0, a key that is not `concurrency`, not a mapping) with its line and column, the plan untouched', async () => {
    const script = 'echo "RESULT: SUCCESS"'
    const front = 'accounts:\n  shell: 0\n  claude: {concurrency: 2}\n  codex: {limit: 3}\n  claud: 4'
    const repo = await planRepo(shellPlan({A: {script}}, {frontMatter: front}))
    const plan = join(repo.root, 'plan.md')
    const before = await readFile(plan, 'utf8')
    const validate = await runCli(['validate', 'plan.md'], {cwd: repo.root})
    expect(validate.exitCode).toBe(2)
    expect(validate.stdout).toContain('plan.md:4:3: front matter `accounts`: `shell`: must be a whole number of at least 1 (or `{concurrency: N}`), not `0` [invalid-setting]')
    expect(validate.stdout).toContain('plan.md:6:3: front matter `accounts`: `codex`: takes only `concurrency`, not `limit` [invalid-setting]')
    expect(validate.stdout).toContain('plan.md:7:3: warning: front matter `accounts`: unknown runner `claud` (known: claude, codex, gemini, opencode, shell, command); it caps nothing [unknown-account-runner]')
    const run = await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(run.exitCode).toBe(2)
    expect(run.all).toContain('plan.md:4:3: front matter `accounts`: `shell`: must be a whole number of at least 1')
    expect(await readFile(plan, 'utf8')).toBe(before)

    await repo.commit('a list', {'plan.md': shellPlan({A: {script}}, {frontMatter: 'accounts: [claude, 8]'})})
    const list = await runCli(['validate', 'plan.md'], {cwd: repo.root})
    expect(list.exitCode).toBe(2)
    expect(list.stdout).toContain('plan.md:3:1: front matter `accounts` must be a mapping of runner names to how many of their agents may run at once on one login')
  }, 60_000)
})
