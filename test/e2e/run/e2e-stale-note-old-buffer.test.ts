import {existsSync} from 'node:fs'
import {mkdtemp, readFile, rename, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {duplicates, logged, readAgentLog} from '../../helpers/agent-log.js'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {shellPlan, startCli, waitForTable, type Row} from '../../helpers/run-cli.js'
import {liveEvents} from '../../helpers/live-events.js'

beforeAll(isolateGitConfig)

const gitEnv = () => ({GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'})
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Save the plan the way an editor does: whole new text to a temp file, then rename over. */
async function editorSave(plan: string, text: string): Promise<void> {
  await writeFile(`${plan}.swp-save`, text)
  await rename(`${plan}.swp-save`, plan)
}

/** The buffer with `note` typed into the (empty) Notes cell of `agent`'s row. */
function typeNote(buffer: string, agent: string, note: string): string {
  const line = buffer.split('\n').find((row) => row.startsWith(`| ${agent} |`))!
  expect(line).toMatch(/\| \|$/)
  return buffer.replace(line, line.replace(/\| \|$/, `| ${note} |`))
}

const completed = (rows: Record<string, Row>, ids: string[]) => ids.filter((id) => rows[id]?.status === 'completed').length

/** How many times each agent started in the log's lines from `from` on. */
async function startsFrom(log: string, from = 0): Promise<Map<string, number>> {
  const counts = new Map<string, number>()
  for (const line of (await readAgentLog(log, from)).lines) {
    const [what, id] = line.split(' ')
    if (what === 'start') counts.set(id!, (counts.get(id!) ?? 0) + 1)
  }
  return counts
}

async function until(predicate: () => Promise<boolean> | boolean, ms = 30_000): Promise<void> {
  for (const deadline = Date.now() + ms; !(await predicate()); await sleep(50)) if (Date.now() > deadline) throw new Error('timed out')
}

/** `count` quick agents Q1…, and Z, which waits for a gate file (and Y after Z, when asked). */
async function setup(count: number, concurrency: number, withY = false) {
  const dir = await mkdtemp(join(tmpdir(), 'mdplan-e2e-old-buffer-'))
  const log = join(dir, 'agents.log')
  const gate = join(dir, 'gate')
  const agents: Record<string, {deps?: string[]; script: string}> = {}
  const quick = Array.from({length: count}, (_, i) => `Q${i + 1}`)
  for (const id of quick) agents[id] = {script: logged(log, 'sleep 0.05')}
  agents.Z = {script: logged(log, `while [ ! -f '${gate}' ]; do sleep 0.05; done`)}
  if (withY) agents.Y = {deps: ['Z'], script: logged(log, 'true')}
  const repo = await tempRepo()
  await repo.commit('plan', {'plan.md': shellPlan(agents, {frontMatter: `concurrency: ${concurrency}`})})
  return {repo, log, gate, quick, plan: join(repo.root, 'plan.md')}
}

describe('a note typed into an editor buffer loaded long before it is saved (git repository)', () => {
  it('one run: a buffer loaded after 10 of 300 agents completed, a note typed into it once all 300 have: the note is taken, no agent runs twice', async () => {
    const s = await setup(300, 4)
    const versions = async () => (await readFile(join(s.repo.root, '.mdplan', 'versions', 'plan.md.log'), 'utf8')).split('\n').filter((line) => line.startsWith('{"v"')).length
    const run = startCli(['run', s.plan, '--json'], {cwd: s.repo.root, env: gitEnv()})
    await waitForTable(s.plan, (rows) => completed(rows, s.quick) >= 10, 60_000)
    const buffer = await readFile(s.plan, 'utf8')
    const loaded = await versions()
    // Hundreds of versions later: more than the whole tables an earlier build kept (12, and 65536 rows' worth of older ones).
    await waitForTable(s.plan, (rows) => completed(rows, s.quick) === 300, 120_000)
    expect((await versions()) - loaded).toBeGreaterThan(12 + 65_536 / 301)
    await editorSave(s.plan, typeNote(buffer, 'Z', 'TODO: look at Z'))
    await waitForTable(s.plan, (rows) => rows.Z?.notes.includes('TODO: look at Z') === true)
    await sleep(500)
    await writeFile(s.gate, '')
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    const side = await readAgentLog(s.log)
    expect(duplicates(side)).toEqual([])
    expect(side.starts.size).toBe(301)
    const rows = await waitForTable(s.plan, () => true)
    expect(rows.Z!.notes).toContain('TODO: look at Z')
    expect(completed(rows, [...s.quick, 'Z'])).toBe(301)
  }, 180_000)

  it('across runs: a buffer loaded in the middle of run 1, a note typed into it and saved during run 2: the note is taken, no agent run 1 completed runs again', async () => {
    const s = await setup(40, 4, true)
    const first = startCli(['run', s.plan, '--json'], {cwd: s.repo.root, env: gitEnv()})
    await waitForTable(s.plan, (rows) => completed(rows, s.quick) >= 3)
    const buffer = await readFile(s.plan, 'utf8')
    await waitForTable(s.plan, (rows) => completed(rows, s.quick) === 40 && rows.Z?.status === 'in_progress', 60_000)
    await until(async () => (await startsFrom(s.log)).has('Z'))
    first.kill('SIGINT')
    await first
    const mark = (await readAgentLog(s.log)).lines.length
    const second = startCli(['run', s.plan, '--json'], {cwd: s.repo.root, env: gitEnv()})
    await until(async () => (await startsFrom(s.log, mark)).has('Z'))
    await editorSave(s.plan, typeNote(buffer, 'Y', 'TODO: check Y output'))
    await waitForTable(s.plan, (rows) => rows.Y?.notes.includes('TODO: check Y output') === true)
    await sleep(500)
    await writeFile(s.gate, '')
    const result = await second
    expect(result.exitCode, result.all).toBe(0)
    // Run 2 launches Z again (run 1 was stopped while it ran) and Y, nothing run 1 completed.
    expect(Object.fromEntries(await startsFrom(s.log, mark))).toEqual({Z: 1, Y: 1})
    const rows = await waitForTable(s.plan, () => true)
    expect(rows.Y!.notes).toContain('TODO: check Y output')
    expect(completed(rows, [...s.quick, 'Z', 'Y'])).toBe(42)
  }, 120_000)

  it('undo in the editor of a re-queue made between runs: the agent the undo set back to completed is not run again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mdplan-e2e-undo-between-'))
    const log = join(dir, 'agents.log')
    const hold = join(dir, 'hold')
    const agents = {
      C: {script: logged(log, `while [ -f '${hold}' ]; do sleep 0.05; done`)},
      D: {script: logged(log, 'true')}
    }
    const repo = await tempRepo()
    await repo.commit('plan', {'plan.md': shellPlan(agents, {frontMatter: 'concurrency: 1'})})
    const plan = join(repo.root, 'plan.md')
    const first = await startCli(['run', plan, '--json'], {cwd: repo.root, env: gitEnv()})
    expect(first.exitCode, first.all).toBe(0)
    const afterRun1 = await readFile(plan, 'utf8')
    // The person re-queues both, starts run 2 (C runs first, D waits), then presses undo for both edits.
    await editorSave(plan, afterRun1.replace(/^\| ([CD]) \| completed \|.*$/gm, '| $1 | pending | — | — | |'))
    await writeFile(hold, '')
    const mark = (await readAgentLog(log)).lines.length
    const second = startCli(['run', plan, '--json'], {cwd: repo.root, env: gitEnv()})
    const events = liveEvents(second)
    await until(async () => (await startsFrom(log, mark)).has('C'))
    const undoTaken = events.until((e) => e.type === 'warning' && /^D: Status is back to "completed"/.test(e.message ?? ''), 'the undo of D taken', 30_000)
    await editorSave(plan, afterRun1)
    // The run takes the undo while C still runs, and only then may C end (a fixed 1.5 s here raced the run's
    // poll on a loaded machine: C's end could come first, and D be launched with it).
    await undoTaken
    await rm(hold)
    const result = await second
    expect(result.exitCode, result.all).toBe(0)
    expect(Object.fromEntries(await startsFrom(log, mark))).toEqual({C: 1})
    expect(result.stdout).toMatch(/D: Status is back to \\"completed\\", as it was before the edit to \\"pending\\": taken as an undo/)
    const rows = await waitForTable(plan, () => true)
    expect(rows.D!.status).toBe('completed')
    // C, launched before the undo, is mdplan's row whole: none of run 1's cells come back into it, no conflict is noted.
    expect(rows.C!.status).toBe('completed')
    expect(rows.C!.notes).not.toContain('conflict')
    expect(existsSync(hold)).toBe(false)
  }, 60_000)
})
