import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {liveRun} from '../../helpers/live-run.js'
import {readTable, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'
import {logged, readAgentLog, waitForFirstStart} from '../../helpers/agent-log.js'
import {liveEvents, saveByRename, withCell} from '../../helpers/live-events.js'

/**
 * A `conflict:` note says what an edit of a row met (README, "What mdplan writes"): it stays through the
 * end of the attempt it was about, and the agent's next launch clears it, so no finished row carries a
 * note about an attempt that is over. Real run, real git, saves by temp + rename.
 */
const session = liveRun()
beforeAll(isolateGitConfig)

const wait = 'while [ ! -f go ]; do sleep 0.05; done'

/** A run of the plan `agents(log)` makes, its agents logging to `log`. */
async function start(agents: (log: string) => Parameters<typeof shellPlan>[0], frontMatter?: string): Promise<{plan: string; log: string; run: ReturnType<typeof startCli>; go: () => void}> {
  session.repo = await tempRepo()
  const root = session.repo.root
  await session.repo.commit('plan', {'plan.md': shellPlan(agents(join(root, 'agents.log')), frontMatter ? {frontMatter} : {})})
  const run = startCli(['run', 'plan.md', '--json'], {cwd: root})
  session.live = run
  return {plan: join(root, 'plan.md'), log: join(root, 'agents.log'), run, go: () => writeFileSync(join(root, 'go'), '')}
}

const startsOf = (lines: string[], agent: string): number => lines.filter((line) => line.startsWith(`start ${agent} `)).length

describe('a conflict note', () => {
  it('about a completed row a person reset to run again is gone once the agent runs again', async () => {
    const {plan, log, run, go} = await start(
      (log) => ({B: {script: logged(log, wait)}, C: {script: logged(log, 'sleep 0.2')}, A: {deps: ['C'], script: logged(log, 'while [ ! -f a-go ]; do sleep 0.05; done')}}),
      'concurrency: 3'
    )
    const events = liveEvents(run)
    await waitForTable(plan, (rows) => rows.A?.status === 'in_progress' && /base: /.test(rows.A.notes) && /base: /.test(rows.B?.notes ?? ''))
    // An editor buffer loaded while A ran, saved after A completed with A's row back as the plan first had it
    // (B still runs): a re-queue, and a Status both changed (in_progress → completed by mdplan, → pending by the person).
    const buffer = readFileSync(plan, 'utf8')
    writeFileSync(join(session.repo!.root, 'a-go'), '')
    await waitForTable(plan, (rows) => rows.A?.status === 'completed')
    const requeued = events.until((e) => e.type === 'launched' && e.agent === 'A', "A's second launch")
    const conflict = events.until((e) => e.type === 'warning' && /^A: Status was edited by hand while mdplan changed it/.test(e.message ?? ''), 'the conflict on A')
    saveByRename(plan, buffer.replace(/^\| A \| in_progress .*$/m, '| A | pending | — | — | |'))
    await Promise.all([requeued, conflict])
    await waitForTable(plan, (rows) => rows.A?.status === 'completed')
    go()
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    const {rows} = await readTable(plan)
    expect(rows.A!.status).toBe('completed')
    // Not `conflict: Status kept pending; base: …`: the note was about the row before A ran again.
    expect(rows.A!.notes).toMatch(/^base: [0-9a-f]{12}$/)
    const {lines} = await readAgentLog(log)
    expect([startsOf(lines, 'A'), startsOf(lines, 'B'), startsOf(lines, 'C')]).toEqual([2, 1, 1])
  }, 30_000)

  it('made while an attempt ran (the attempt then failed) is gone once the retry is launched', async () => {
    const {plan, log, run, go} = await start((log) => ({A: {script: logged(log, `if [ "$MDPLAN_ATTEMPT" = 1 ]; then ${wait}; exit 1; fi`)}}))
    await waitForFirstStart(log)
    const rows = await waitForTable(plan, (r) => r.A?.status === 'in_progress' && /base: /.test(r.A.notes))
    const events = liveEvents(run)
    // Marked done by hand while it runs: not taken, and noted in the row.
    saveByRename(plan, withCell(readFileSync(plan, 'utf8'), 'A', 1, () => 'completed'))
    await waitForTable(plan, (r) => /conflict: Status kept in_progress/.test(r.A?.notes ?? ''))
    const failed = events.until((e) => e.type === 'failed' && e.agent === 'A', "A's failure")
    go()
    await failed
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    const final = (await readTable(plan)).rows.A!
    expect(final.status).toBe('completed')
    expect(final.agentId).not.toBe(rows.A!.agentId)
    expect(final.notes.split('; ').map((item) => item.replace(/: .*/, '')).sort()).toEqual(['attempt 1', 'base'])
    expect(final.notes).not.toMatch(/conflict:/)
    expect((await readAgentLog(log)).starts).toEqual(new Map([['A#1', 1], ['A#2', 1]]))
  }, 30_000)
})
