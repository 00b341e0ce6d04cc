import {mkdtemp, readFile, stat, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan} from '../../helpers/run-cli.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'

// A merge made without the mdplan driver: git's own markers in the state table. Real runs on both
// branches, a real `git merge`, launches counted from the agents' side.
beforeAll(isolateGitConfig)
let repos: TempRepo[] = []
afterEach(async () => {
  await Promise.all(repos.map((repo) => repo.cleanup()))
  repos = []
})

const gitEnv = () => ({GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'})

/** Each agent completes only where a `.allow-<ID>` file exists (the branches differ in which). */
function plan(log: string): string {
  const script = `${logged(log, 'test -e ".allow-$MDPLAN_AGENT"; ok=$?')}\nexit $ok`
  return shellPlan({A: {script}, B: {deps: ['A'], script}, C: {deps: ['A'], script}, D: {deps: ['B', 'C'], script}}, {frontMatter: 'max_attempts: 1'})
}

/**
 * main ran A and B (C failed, D blocked), `theirs` ran A and C (B failed, D blocked); main merges
 * theirs with no driver configured, so git leaves its markers in the table.
 */
async function conflictedMerge(): Promise<{repo: TempRepo; file: string; log: string}> {
  const log = join(await mkdtemp(join(tmpdir(), 'mdplan-resolve-log-')), 'agents.log')
  const repo = await tempRepo({'.gitignore': '.allow-*\n.mdplan/\n', 'plans/plan.md': plan(log)})
  repos.push(repo)
  const file = join(repo.root, 'plans/plan.md')
  const runOn = async (allow: string[]) => {
    for (const id of allow) await writeFile(join(repo.root, `.allow-${id}`), '')
    const run = await runCli(['run', 'plans/plan.md', '--quiet'], {cwd: repo.root, env: gitEnv()})
    expect(run.exitCode, run.all).toBe(1)
    for (const id of allow) await repo.git('clean', '-fqX', '--', `.allow-${id}`)
    await repo.commit(`ran ${allow.join(', ')}`)
  }
  await repo.git('checkout', '--quiet', '-b', 'theirs')
  await runOn(['A', 'C'])
  await repo.git('checkout', '--quiet', 'main')
  await runOn(['A', 'B'])
  const merge = await repo.git('merge', '--no-edit', 'theirs').catch((error: {exitCode: number; stdout: string}) => error)
  expect(typeof merge === 'object' && merge.exitCode).toBe(1)
  return {repo, file, log}
}

describe('a merge without the driver leaves conflict markers in the state table', () => {
  it('validate, status, report and graph refuse them at the marker line; run launches nothing and changes nothing', async () => {
    const {repo, file, log} = await conflictedMerge()
    const text = await readFile(file, 'utf8')
    const markerLine = text.split('\n').findIndex((line) => line.startsWith('<<<<<<<')) + 1
    expect(markerLine).toBeGreaterThan(0)

    const validate = await runCli(['validate', 'plans/plan.md'], {cwd: repo.root})
    expect(validate.exitCode).toBe(2)
    expect(validate.stdout).toContain(`plans/plan.md:${markerLine}:1: conflict markers (\`<<<<<<<\`) from a merge in the Execution State: run \`mdplan resolve plans/plan.md\``)
    expect(validate.stdout).toContain('[damaged-state-table]')

    for (const command of [['status'], ['report'], ['graph', '--write']]) {
      const result = await runCli([command[0]!, 'plans/plan.md', ...command.slice(1)], {cwd: repo.root})
      expect(result.exitCode, command[0]).toBe(2)
      expect(result.stderr, command[0]).toContain(`plans/plan.md:${markerLine}:1: conflict markers`)
    }

    const before = await stat(file)
    const logged = (await readAgentLog(log)).lines.length
    const run = await runCli(['run', 'plans/plan.md'], {cwd: repo.root, env: {...gitEnv(), PATH: process.env.PATH!}})
    expect(run.exitCode).toBe(2)
    expect(run.stderr).toMatch(/run `mdplan resolve \S*plans\/plan\.md`/)
    expect((await readAgentLog(log)).lines.length).toBe(logged)
    expect(await readFile(file, 'utf8')).toBe(text)
    expect((await stat(file)).mtimeMs).toBe(before.mtimeMs)
  })

  it('resolve re-merges from git’s index: both sides’ completions kept; then run launches only what is pending', async () => {
    const {repo, file, log} = await conflictedMerge()
    const conflicted = await readFile(file, 'utf8')
    const resolve = await runCli(['resolve', 'plans/plan.md'], {cwd: repo.root})
    expect(resolve.exitCode, resolve.all).toBe(0)
    expect(resolve.stdout).toContain('nothing is left for you: review it, then `git add plans/plan.md`')
    const {rows, text} = await readTable(file)
    expect(text).not.toMatch(/^(<{7}|={7}|>{7})/m)
    expect(Object.fromEntries(Object.entries(rows).map(([id, row]) => [id, row.status]))).toEqual({A: 'completed', B: 'completed', C: 'completed', D: 'pending'})
    // D's `blocked by:` came from a failure the other side completed: recomputed, so gone.
    expect(rows.D!.notes).not.toContain('blocked by')
    // What git left in the file is kept.
    expect(await readFile(join(repo.root, '.git/mdplan/before-resolve/plans/plan.md'), 'utf8')).toBe(conflicted)

    const validate = await runCli(['validate', 'plans/plan.md'], {cwd: repo.root})
    expect(validate.exitCode, validate.stdout).toBe(0)
    await repo.git('add', 'plans/plan.md')
    await repo.git('commit', '--quiet', '--no-edit')

    // Not in a conflicted merge any more.
    const again = await runCli(['resolve', 'plans/plan.md'], {cwd: repo.root})
    expect(again.exitCode).toBe(2)
    expect(again.stderr).toMatch(/^mdplan resolve: plans\/plan\.md: not in a conflicted merge/)

    const from = (await readAgentLog(log)).lines.length
    await writeFile(join(repo.root, '.allow-D'), '')
    const run = await runCli(['run', 'plans/plan.md', '--quiet'], {cwd: repo.root, env: gitEnv()})
    expect(run.exitCode, run.all).toBe(0)
    const side = await readAgentLog(log, from)
    expect([...side.starts]).toEqual([['D#1', 1]])
  })

  it('a row completed on one side and re-queued on the other is left between markers that name it: exit 1', async () => {
    const log = join(await mkdtemp(join(tmpdir(), 'mdplan-resolve-log-')), 'agents.log')
    const repo = await tempRepo({'.gitignore': '.allow-*\n.mdplan/\n', 'plans/plan.md': plan(log)})
    repos.push(repo)
    const file = join(repo.root, 'plans/plan.md')
    for (const id of ['A', 'B', 'C', 'D']) await writeFile(join(repo.root, `.allow-${id}`), '')
    expect((await runCli(['run', 'plans/plan.md', '--quiet'], {cwd: repo.root, env: gitEnv()})).exitCode).toBe(0)
    await repo.commit('ran all')
    await repo.git('checkout', '--quiet', '-b', 'theirs')
    // A person re-queues B on their branch.
    await repo.commit('re-queue B', {'plans/plan.md': (await readFile(file, 'utf8')).replace(/^\| B \| completed \|[^\n]*$/m, '| B | pending | — | — | |')})
    await repo.git('checkout', '--quiet', 'main')
    await repo.commit('B again', {'plans/plan.md': (await readFile(file, 'utf8')).replace(/^(\| B \| completed \|[^\n]*?)\|$/m, '$1 checked again |')})
    await repo.git('merge', '--no-edit', 'theirs').catch(() => undefined)
    expect(await readFile(file, 'utf8')).toContain('<<<<<<< HEAD')

    const resolve = await runCli(['resolve', 'plans/plan.md'], {cwd: repo.root})
    expect(resolve.exitCode, resolve.all).toBe(1)
    const text = await readFile(file, 'utf8')
    const line = text.split('\n').findIndex((l) => l.startsWith('<<<<<<< ours: agent B:')) + 1
    expect(line).toBeGreaterThan(0)
    expect(resolve.stdout).toContain(`plans/plan.md:${line}:1: agent B: completed on ours, re-queued (pending) on theirs: both rows are left between markers`)
    expect(resolve.stdout).toContain('1 conflict left for you')
    const validate = await runCli(['validate', 'plans/plan.md'], {cwd: repo.root})
    expect(validate.exitCode).toBe(2)
    expect(validate.stdout).toContain(`plans/plan.md:${line}:1: conflict markers`)
  })

  it('outside a conflicted merge, or outside git, resolve is exit 2 with one line', async () => {
    const repo = await tempRepo({'plans/plan.md': plan('/dev/null')})
    repos.push(repo)
    const result = await runCli(['resolve', 'plans/plan.md'], {cwd: repo.root})
    expect(result.exitCode).toBe(2)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-nogit-'))
    await writeFile(join(dir, 'plan.md'), plan('/dev/null'))
    const outside = await runCli(['resolve', 'plan.md'], {cwd: dir})
    expect(outside.exitCode).toBe(2)
    expect(outside.stderr).toMatch(/^mdplan resolve: plan\.md: .*not a git repository/i)
  })

  it('conflict markers in an agent section are an error at the line, not prompt text', async () => {
    const text = plan('/dev/null').replace('### B: b-step\n', '### B: b-step\n<<<<<<< HEAD\n- **model**: x\n=======\n- **model**: y\n>>>>>>> theirs\n')
    const repo = await tempRepo({'plans/plan.md': text})
    repos.push(repo)
    const line = text.split('\n').indexOf('<<<<<<< HEAD') + 1
    const validate = await runCli(['validate', 'plans/plan.md'], {cwd: repo.root})
    expect(validate.exitCode).toBe(2)
    expect(validate.stdout).toContain(`plans/plan.md:${line}:1: conflict markers (\`<<<<<<<\`) from a merge: keep the lines you want and delete the marker lines`)
    expect(validate.stdout).toContain('[conflict-markers]')
  })
})
