import {readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {liveRun} from '../../helpers/live-run.js'
import {readTable, runCli, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'
import {logged, readAgentLog, waitForFirstStart} from '../../helpers/agent-log.js'

/**
 * A person writes a status mdplan does not know (`skipped`) into a pending row while the run goes on.
 * `validate` and a run's start refuse it (exit 2, unknown-status); mid-run the agent is held: never
 * launched, its cell never overwritten, one warning naming the cell's file:line:col and the statuses
 * mdplan knows; its dependants are blocked by it; the run ends with exit 1 and the scorecard shows
 * it not completed. A known status written over it lets it run. Real run, real git, in place and by rename.
 */
const session = liveRun()
beforeAll(isolateGitConfig)

const saves = {
  'in place': (file: string, text: string) => writeFileSync(file, text),
  'temp + rename': (file: string, text: string) => {
    writeFileSync(`${file}.tmp~`, text)
    renameSync(`${file}.tmp~`, file)
  }
}

type Event = {type: string; agent?: string; message?: string; exitCode?: number; scorecard?: {agents: Array<{id: string; status: string; attempts: number}>; counts: Record<string, number>}}

/** Resolves once the run's output matches `pattern`; rejects, saying what it printed, if the run ends first or after 10 s. */
function said(run: ReturnType<typeof startCli>, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`the run never printed ${pattern} in 10 s; it printed:\n${out}`)), 10_000)
    run.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (!pattern.test(out)) return
      clearTimeout(timer)
      resolve()
    })
    void run.then((result) => reject(new Error(`the run ended first: ${result.all}`)))
  })
}

async function start(): Promise<{plan: string; log: string; go: () => void; run: ReturnType<typeof startCli>; root: string}> {
  session.repo = await tempRepo()
  const log = join(session.repo.root, 'agents.log')
  const agents = {
    A: {script: logged(log, 'while [ ! -f go ]; do sleep 0.05; done')},
    F: {deps: ['A'], script: logged(log, 'true')},
    G: {deps: ['F'], script: logged(log, 'true')}
  }
  await session.repo.commit('plan', {'plan.md': shellPlan(agents)})
  const root = session.repo.root
  const plan = join(root, 'plan.md')
  const run = startCli(['run', 'plan.md', '--json'], {cwd: root})
  session.live = run
  await waitForFirstStart(log)
  // Saved once mdplan's writes for the launch are on disk (its last, `base:`): a save that lands in the
  // instant between a write's check and its rename is replaced (README, "One instant is left").
  await waitForTable(plan, (rows) => rows.A?.status === 'in_progress' && /base: /.test(rows.A.notes))
  return {plan, log, run, root, go: () => writeFileSync(join(root, 'go'), '')}
}

const setStatus = (text: string, agent: string, status: string): string => text.replace(new RegExp(`^\\| ${agent} \\| [^|]*\\|`, 'm'), `| ${agent} | ${status} |`)

describe.each(Object.entries(saves))('a status mdplan does not know, written during a run (saved %s)', (_how, save) => {
  it('holds the agent: never launched, its cell kept, one warning with file:line:col; dependants blocked; exit 1', async () => {
    const {plan, log, run, root, go} = await start()
    save(plan, setStatus(readFileSync(plan, 'utf8'), 'F', 'skipped'))
    await said(run, /unknown status `skipped`/)
    go()
    const result = await run
    const events = result.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Event)
    expect(result.exitCode, result.all).toBe(1)
    // Never launched, nor what depends on it.
    expect((await readAgentLog(log)).starts).toEqual(new Map([['A#1', 1]]))
    expect(events.filter((e) => e.type === 'launched').map((e) => e.agent)).toEqual(['A'])
    // The person's cell, as written, in the file at the end; G waits on F and says why.
    const {rows, text} = await readTable(plan)
    expect(text).toMatch(/^\| F \| skipped \| — \| — \| *\|$/m)
    expect(rows.A!.status).toBe('completed')
    expect(rows.G).toMatchObject({status: 'pending', notes: 'blocked by: F (unknown status)'})
    // One warning, at the cell `validate` names, with the statuses mdplan knows.
    const validate = await runCli(['validate', 'plan.md'], {cwd: root})
    expect(validate.exitCode).toBe(2)
    const at = /plan\.md:(\d+:\d+): unknown status `skipped` for agent F/.exec(validate.stdout + validate.stderr)![1]
    const warnings = events.filter((e) => e.type === 'warning' && /\[unknown-status\]/.test(e.message ?? '')).map((e) => e.message)
    expect(warnings).toEqual([
      `${plan}:${at}: unknown status \`skipped\` for agent F, written during the run: expected one of pending, in_progress, completed, failed, needs_input, awaiting_review [unknown-status]; F is held: not launched, its cell kept as written, until you write one of those (the run ends without it, exit 1)`
    ])
    // The end says it: not completed, held; the scorecard shows the cell's text and no attempt.
    expect(events.filter((e) => e.type === 'warning' && /^not completed/.test(e.message ?? '')).map((e) => e.message)).toEqual(['not completed: F (held: unknown status `skipped`), G (pending)'])
    const finished = events.find((e) => e.type === 'run-finished')!
    expect(finished.exitCode).toBe(1)
    expect(finished.scorecard!.counts).toMatchObject({completed: 1, pending: 1, held: 1})
    expect(finished.scorecard!.agents.map((a) => [a.id, a.status, a.attempts])).toEqual([
      ['A', 'completed', 1],
      ['F', 'skipped (held)', 0],
      ['G', 'pending', 0]
    ])
  }, 30_000)

  it('a known status written over it lets it go: `pending` runs it and what waits on it', async () => {
    const {plan, log, run, go} = await start()
    save(plan, setStatus(readFileSync(plan, 'utf8'), 'F', 'Skipped').replace(/^(\| F \|.*\|) *\|$/m, '$1 hold on |'))
    await said(run, /unknown status `Skipped`/)
    // The write that hold causes (G's `blocked by:`) on disk first, for the same reason as above.
    await waitForTable(plan, (rows) => rows.G?.notes === 'blocked by: F (unknown status)')
    // Only the status, from the file as it is now. (The note stays: a section byte-identical to one mdplan
    // wrote before would read as an old editor buffer, not as an edit.)
    save(plan, setStatus(readFileSync(plan, 'utf8'), 'F', 'pending'))
    await said(run, /"human-edit".*"column":"Status","value":"pending"/)
    go()
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    expect((await readAgentLog(log)).starts).toEqual(new Map([['A#1', 1], ['F#1', 1], ['G#1', 1]]))
    const {rows} = await readTable(plan)
    expect([rows.A!.status, rows.F!.status, rows.G!.status]).toEqual(['completed', 'completed', 'completed'])
    expect(result.stdout.split('\n').filter((l) => /\[unknown-status\]/.test(l))).toHaveLength(1)
    expect(rows.F!.notes).toMatch(/^hold on; base: /)
  }, 30_000)
})
