import {existsSync, writeFileSync} from 'node:fs'
import {readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {liveRun} from '../../helpers/live-run.js'
import {readTable, runCli, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'

/**
 * Review gates (docs/review.md) in a real git repository, counted from the agents' side: A's work waits for a
 * person (`review: true`) before it is merged and before B, which depends on it, starts; C is independent.
 * Each agent appends `start ID ATTEMPT` and `end ID ATTEMPT` to a log outside the repository; A also writes
 * there the review note it was given (and whether its earlier work was there), and B whether it found A's
 * work in its tree.
 */
const session = liveRun()
beforeAll(isolateGitConfig)

/** A repository with the plan committed; `c`: C's script (by default it is done at once). */
async function setup(options: {front: string; c?: (flag: string) => string}) {
  session.repo = await tempRepo({'README.md': '# test\n'})
  const root = session.repo.root
  const log = join(root, '..', `${root.split('/').pop()}-agents.log`)
  const flag = join(root, '..', `${root.split('/').pop()}-go`)
  // Its earlier work is where a rerun finds it: `kept` when a.txt is there already.
  const a = `printf 'review %s %s %s\\n' "$MDPLAN_ATTEMPT" "\${MDPLAN_REVIEW:-none}" "$([ -f a.txt ] && echo kept || echo fresh)" >> '${log}'\necho tabs > a.txt`
  const b = `if [ -f a.txt ]; then echo "B saw a.txt" >> '${log}'; else echo "B missed a.txt" >> '${log}'; fi\necho b > b.txt`
  const c = options.c?.(flag) ?? 'echo c > c.txt'
  const plan = shellPlan({A: {script: logged(log, a), creates: ['a.txt'], review: true}, B: {deps: ['A'], script: logged(log, b), creates: ['b.txt']}, C: {script: logged(log, c), creates: ['c.txt']}}, {frontMatter: options.front})
  await session.repo.commit('plan', {'plan.md': plan})
  return {root, log, flag, plan: join(root, 'plan.md'), repo: session.repo}
}

const lines = async (log: string, prefix: string) => (existsSync(log) ? (await readFile(log, 'utf8')).split('\n').filter((line) => line.startsWith(prefix)) : [])

describe('a review gate', () => {
  it('holds A\'s work unmerged and B unstarted, ends the run saying how to approve; approval, then a rerun, merges it and runs B once', async () => {
    const {root, log, plan, repo} = await setup({front: 'isolation: worktree'})
    const first = await runCli(['run', 'plan.md'], {cwd: root})
    expect(first.exitCode, first.all).toBe(1)
    expect(first.all).toContain('awaiting review: A; approve with `mdplan review plan.md A --approve` or send back with `mdplan review plan.md A --reject "why"`, then run again')
    const held = (await readTable(plan)).rows
    expect(held.A).toMatchObject({status: 'awaiting_review', notes: expect.stringMatching(/review: waiting$/)})
    expect(held.B).toMatchObject({status: 'pending', notes: 'blocked by: A (awaiting review)'})
    expect(held.C!.status).toBe('completed')
    expect((await readAgentLog(log)).starts).toEqual(new Map([['A#1', 1], ['C#1', 1]]))
    // Held: committed on A's branch, not in the plan's branch.
    expect(existsSync(join(root, 'a.txt'))).toBe(false)
    expect(await repo.git('log', '--format=%s', 'mdplan/plan/A')).toContain('test · A: a-step')

    const before = await repo.read('plan.md')
    const approve = await runCli(['review', 'plan.md', 'A', '--approve'], {cwd: root})
    expect(approve.exitCode, approve.all).toBe(0)
    expect(approve.stdout).toBe('A: approved. The next `mdplan run plan.md` merges its work and starts its dependants.')
    // The hand edit, exactly: the Status cell alone.
    expect(await repo.read('plan.md')).toBe(before.replace(/^\| A \| awaiting_review \|/m, '| A | completed |'))

    const second = await runCli(['run', 'plan.md'], {cwd: root})
    expect(second.exitCode, second.all).toBe(0)
    const done = (await readTable(plan)).rows
    expect(Object.values(done).map((row) => row.status)).toEqual(['completed', 'completed', 'completed'])
    expect(done.A!.notes).toMatch(/review: approved$/)
    expect((await readAgentLog(log)).starts).toEqual(new Map([['A#1', 1], ['C#1', 1], ['B#1', 1]]))
    expect(await lines(log, 'B ')).toEqual(['B saw a.txt'])
    expect(await repo.read('a.txt')).toBe('tabs\n')
  }, 90_000)

  it('with a live run, an approval is acted on at once: the work is committed and B starts while C still runs', async () => {
    const {root, log, flag, plan, repo} = await setup({front: 'commit: true', c: (go) => `while [ ! -f '${go}' ]; do sleep 0.05; done\necho c > c.txt`})
    const run = startCli(['run', 'plan.md'], {cwd: root})
    session.live = run
    await waitForTable(plan, (rows) => rows.A?.status === 'awaiting_review')
    // Held: A's file is in the tree, not committed.
    expect(await repo.git('status', '--porcelain', '--', 'a.txt')).toBe('?? a.txt')
    const approve = await runCli(['review', 'plan.md', 'A', '--approve'], {cwd: root})
    expect(approve.exitCode, approve.all).toBe(0)
    expect(approve.stdout).toBe(`A: approved. The run going on (pid ${run.pid}) merges its work and starts its dependants once it reads the file.`)
    await waitForTable(plan, (rows) => rows.B?.status === 'completed')
    expect((await readTable(plan)).rows.C!.status).toBe('in_progress')
    writeFileSync(flag, '')
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    expect((await readAgentLog(log)).starts).toEqual(new Map([['A#1', 1], ['C#1', 1], ['B#1', 1]]))
    const a = (await readTable(plan)).rows.A!
    expect(a.notes).toMatch(/commit: [0-9a-f]+; review: approved$/)
    expect(await repo.git('log', '-1', '--format=%s', '--', 'a.txt')).toBe('test · A: a-step')
  }, 90_000)

  it('a rejection runs A again once, given the note, using no attempt; its new work waits for review again', async () => {
    const {root, log, plan, repo} = await setup({front: 'isolation: worktree'})
    expect((await runCli(['run', 'plan.md'], {cwd: root})).exitCode).toBe(1)
    const before = await repo.read('plan.md')
    const reject = await runCli(['review', 'plan.md', 'A', '--reject', 'use tabs'], {cwd: root})
    expect(reject.exitCode, reject.all).toBe(0)
    expect(reject.stdout).toBe('A: sent back ("use tabs"). The next `mdplan run plan.md` runs A again with the note.')
    const rejected = before.replace(/^\| A \| awaiting_review \|(.*)review: waiting \|$/m, '| A | pending |$1review: rejected: use tabs |')
    expect(rejected).not.toBe(before)
    expect(await repo.read('plan.md')).toBe(rejected)

    const second = await runCli(['run', 'plan.md'], {cwd: root})
    expect(second.exitCode, second.all).toBe(1)
    expect((await readAgentLog(log)).starts).toEqual(new Map([['A#1', 1], ['C#1', 1], ['A#2', 1]]))
    expect(await lines(log, 'review ')).toEqual(['review 1 none fresh', 'review 2 use tabs kept'])
    const a = (await readTable(plan)).rows.A!
    expect(a.status).toBe('awaiting_review')
    expect(a.notes).not.toMatch(/attempt \d+:/)
    expect((await readTable(plan)).rows.B!.status).toBe('pending')
  }, 90_000)

  it('survives a SIGKILL of the coordinator while A awaits review: the rerun keeps it waiting and does not run A again', async () => {
    const {root, log, flag, plan} = await setup({front: 'isolation: worktree', c: (go) => `while [ ! -f '${go}' ]; do sleep 0.05; done\necho c > c.txt`})
    const run = startCli(['run', 'plan.md'], {cwd: root})
    session.live = run
    await waitForTable(plan, (rows) => rows.A?.status === 'awaiting_review')
    run.kill('SIGKILL')
    await run
    session.live = undefined
    // C was left running as its own job: the rerun goes back to it.
    writeFileSync(flag, '')
    const rerun = await runCli(['run', 'plan.md'], {cwd: root})
    expect(rerun.exitCode, rerun.all).toBe(1)
    const rows = (await readTable(plan)).rows
    expect(rows.A).toMatchObject({status: 'awaiting_review', notes: expect.stringMatching(/review: waiting$/)})
    expect(rows.B!.status).toBe('pending')
    expect(rows.C!.status).toBe('completed')
    expect((await readAgentLog(log)).starts).toEqual(new Map([['A#1', 1], ['C#1', 1]]))
    // Its held work is still there for the person to look at and approve.
    expect(existsSync(join(root, '.mdplan', 'worktrees', 'plan', 'A', 'a.txt'))).toBe(true)
  }, 90_000)
})
