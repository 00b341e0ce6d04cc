import {existsSync} from 'node:fs'
import {mkdtemp, readFile, rename, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'
import {duplicates, logged, readAgentLog} from '../../helpers/agent-log.js'
import {liveEvents} from '../../helpers/live-events.js'

beforeAll(isolateGitConfig)

const gitEnv = () => ({GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'})
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** How many times the agent started, whatever the attempt. */
function startsOf(side: {lines: string[]}, agent: string): number {
  return side.lines.filter((line) => line.startsWith(`start ${agent} `)).length
}

/** Save the plan the way an editor does: whole new text to a temp file, then rename over. */
async function editorSave(plan: string, text: string): Promise<void> {
  await writeFile(`${plan}.swp-save`, text)
  await rename(`${plan}.swp-save`, plan)
}

/** Until the agents' log has a line matching `pattern` from line `from` on. */
async function waitForLog(log: string, from: number, pattern: RegExp, ms = 15_000): Promise<void> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(50)) {
    if ((await readAgentLog(log, from)).lines.some((line) => pattern.test(line))) return
  }
  throw new Error(`timed out waiting for ${pattern} in ${log}`)
}

/**
 * A and C finish at once; B (after A) waits for a gate file, so a run can be
 * stopped while B runs, and the next run keeps running until the test opens
 * the gate.
 */
async function setup() {
  const dir = await mkdtemp(join(tmpdir(), 'mdplan-e2e-stale-'))
  const log = join(dir, 'agents.log')
  const gate = join(dir, 'gate')
  const agents = {
    A: {creates: ['out/A.txt'], script: logged(log, 'mkdir -p out\necho A > out/A.txt')},
    B: {deps: ['A'], creates: ['out/B.txt'], script: logged(log, `for i in $(seq 600); do [ -f '${gate}' ] && break; sleep 0.05; done\nmkdir -p out\necho B > out/B.txt`)},
    C: {creates: ['out/C.txt'], script: logged(log, 'mkdir -p out\necho C > out/C.txt')}
  }
  const repo = await tempRepo()
  await repo.commit('plan', {'plan.md': shellPlan(agents, {frontMatter: 'concurrency: 2'})})
  return {repo, log, gate, plan: join(repo.root, 'plan.md')}
}

/** Run 1 completes A and C and is stopped (Ctrl-C) while B runs; run 2 starts and relaunches B (the interrupted attempt again: `B 1` starts once in each run). */
async function resumedRun(s: Awaited<ReturnType<typeof setup>>) {
  const first = startCli(['run', s.plan, '--json'], {cwd: s.repo.root, env: gitEnv()})
  await waitForTable(s.plan, (rows) => rows.A?.status === 'completed' && rows.C?.status === 'completed' && rows.B?.status === 'in_progress')
  await waitForLog(s.log, 0, /^start B /)
  first.kill('SIGINT')
  await first
  const mark = (await readAgentLog(s.log)).lines.length
  const second = startCli(['run', s.plan, '--json'], {cwd: s.repo.root, env: gitEnv()})
  await waitForLog(s.log, mark, /^start B /)
  return {second, mark}
}

/** After a save: give the run time to merge it (it polls the file), then let B finish. */
async function finish(s: Awaited<ReturnType<typeof setup>>, run: ReturnType<typeof startCli>) {
  await sleep(1500)
  await writeFile(s.gate, '')
  return await run
}

describe('a stale table saved during a resumed run (git repository)', () => {
  it('an editor buffer loaded before run 1, saved during run 2 with a new title: the title is kept, no completed agent runs again', async () => {
    const s = await setup()
    const buffer = await readFile(s.plan, 'utf8')
    const {second, mark} = await resumedRun(s)
    await editorSave(s.plan, buffer.replace('# Parallel Plan: test', '# Parallel Plan: test (renamed by a person)'))
    const result = await finish(s, second)
    expect(result.exitCode, result.all).toBe(0)
    const side = await readAgentLog(s.log)
    expect(duplicates(await readAgentLog(s.log, mark)), side.lines.join('\n')).toEqual([])
    // A and C completed in run 1: they never start again (a re-queue would start them as attempt 1 again,
    // its row reset); B ran in both runs (stopped, then resumed).
    expect([startsOf(side, 'A'), startsOf(side, 'C')], side.lines.join('\n')).toEqual([1, 1])
    const {rows, text} = await readTable(s.plan)
    expect(text).toContain('# Parallel Plan: test (renamed by a person)\n')
    expect(Object.values(rows).map((row) => row.status)).toEqual(['completed', 'completed', 'completed'])
    expect(result.stdout).toMatch(/a save brought back an Execution State table mdplan wrote or read earlier[^"]*keeps mdplan's rows for A, B, C /)
    await s.repo.cleanup()
  }, 60_000)

  it('the same buffer with a note typed into it: the note is taken, and still no completed agent runs again', async () => {
    const s = await setup()
    const buffer = await readFile(s.plan, 'utf8')
    const {second, mark} = await resumedRun(s)
    await editorSave(s.plan, buffer.replace('| C | pending | — | — | |', '| C | pending | — | — | look here |'))
    const result = await finish(s, second)
    expect(result.exitCode, result.all).toBe(0)
    const side = await readAgentLog(s.log)
    expect(duplicates(await readAgentLog(s.log, mark)), side.lines.join('\n')).toEqual([])
    expect([startsOf(side, 'A'), startsOf(side, 'C')], side.lines.join('\n')).toEqual([1, 1])
    const {rows} = await readTable(s.plan)
    expect(Object.values(rows).map((row) => row.status)).toEqual(['completed', 'completed', 'completed'])
    expect(rows.C?.notes).toContain('look here')
    await s.repo.cleanup()
  }, 60_000)

  it('`git checkout plan.md` during run 2 (the committed plan, all pending): no completed agent runs again', async () => {
    const s = await setup()
    const {second, mark} = await resumedRun(s)
    // The committed plan has every row pending. (Reading the file after the checkout would race the run, which
    // puts its rows back within milliseconds of the save.)
    expect((await s.repo.git('show', 'HEAD:plan.md')).match(/^\| [ABC] \| pending \|/gm)).toHaveLength(3)
    await s.repo.git('checkout', '--', 'plan.md')
    const result = await finish(s, second)
    expect(result.exitCode, result.all).toBe(0)
    expect(result.stdout).toMatch(/a save brought back an Execution State table mdplan wrote or read earlier[^"]*keeps mdplan's rows for A, B, C /)
    const side = await readAgentLog(s.log)
    expect(duplicates(await readAgentLog(s.log, mark)), side.lines.join('\n')).toEqual([])
    expect([startsOf(side, 'A'), startsOf(side, 'C')], side.lines.join('\n')).toEqual([1, 1])
    const {rows} = await readTable(s.plan)
    expect(Object.values(rows).map((row) => row.status)).toEqual(['completed', 'completed', 'completed'])
    await s.repo.cleanup()
  }, 60_000)

  it('a person setting a row completed in run 1 back to pending during run 2 still re-queues it', async () => {
    const s = await setup()
    const {second, mark} = await resumedRun(s)
    const text = await readFile(s.plan, 'utf8')
    const row = text.split('\n').find((line) => line.startsWith('| A | completed'))!
    // The row exactly as it was before run 1: the table around it is new, so this is an edit.
    await editorSave(s.plan, text.replace(row, '| A | pending | — | — | |'))
    const result = await finish(s, second)
    expect(result.exitCode, result.all).toBe(0)
    const side = await readAgentLog(s.log, mark)
    expect([startsOf(side, 'A'), startsOf(side, 'C')], side.lines.join('\n')).toEqual([1, 0])
    const {rows} = await readTable(s.plan)
    expect(Object.values(rows).map((row) => row.status)).toEqual(['completed', 'completed', 'completed'])
    await s.repo.cleanup()
  }, 60_000)
})

describe('undoing a hand edit (git repository)', () => {
  it('a skip (pending C set to completed) undone while A runs: C runs, once, and the run says it took the undo', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-e2e-undo-'))
    const log = join(dir, 'agents.log')
    const gate = join(dir, 'gate')
    const agents = {
      A: {script: logged(log, `for i in $(seq 600); do [ -f '${gate}' ] && break; sleep 0.05; done`)},
      C: {deps: ['A'], script: logged(log, 'true')}
    }
    const repo = await tempRepo()
    await repo.commit('plan', {'plan.md': shellPlan(agents)})
    const plan = join(repo.root, 'plan.md')
    const run = startCli(['run', plan, '--json'], {cwd: repo.root, env: gitEnv()})
    const events = liveEvents(run)
    await waitForTable(plan, (rows) => rows.A?.status === 'in_progress')
    await waitForLog(log, 0, /^start A /)
    const before = await readFile(plan, 'utf8')
    // The run takes the skip (it has nothing to write: the file already says so) and says it did. Waited for: the
    // undo below is one only once the skip was taken. (This waited for a new inode, which never came, so it went on
    // after a fixed 3 s: a run that had not polled by then saw no edit at all, nor said it took an undo.)
    const skipped = events.until((e) => e.type === 'human-edit' && e.agent === 'C' && e.column === 'Status' && e.value === 'completed', 'the skip of C taken', 20_000)
    await editorSave(plan, before.replace('| C | pending | — | — | |', '| C | completed | — | — | |'))
    await skipped
    const merged = await readFile(plan, 'utf8')
    expect(merged).toContain('| C | completed |')
    // The undo: C's row back as it was, which makes the section one mdplan wrote before the skip.
    const undone = merged.replace(merged.split('\n').find((line) => line.startsWith('| C |'))!, '| C | pending | — | — | |')
    expect(undone).toBe(before)
    const undoTaken = events.until((e) => e.type === 'warning' && /^C: Status is back to "pending"/.test(e.message ?? ''), 'the undo of the skip taken', 20_000)
    await editorSave(plan, undone)
    // The run takes the undo while A still runs (a fixed 1.5 s here raced the run's poll), then A is let go.
    await undoTaken
    await writeFile(gate, '')
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    const side = await readAgentLog(log)
    expect([startsOf(side, 'A'), startsOf(side, 'C')], side.lines.join('\n')).toEqual([1, 1])
    const {rows} = await readTable(plan)
    expect(rows.C?.status).toBe('completed')
    expect(result.stdout).toMatch(/C: Status is back to \\"pending\\", as it was before the edit to \\"completed\\": taken as an undo of that edit/)
    expect(existsSync(join(repo.root, '.mdplan', 'versions', 'plan.md.log'))).toBe(true)
    await repo.cleanup()
  }, 60_000)
})
