import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {liveRun} from '../../helpers/live-run.js'
import {readTable, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'
import {logged, readAgentLog, waitForFirstStart} from '../../helpers/agent-log.js'
import {liveEvents, saveByRename} from '../../helpers/live-events.js'

/**
 * A person deletes an agent's row while a run goes on (README, "What mdplan writes"): the agent is still
 * under `## Agents`, so its row comes back at the next write, and the run says so once, with how to
 * remove or skip an agent. Real run, real git, the save by temp + rename.
 */
const session = liveRun()
beforeAll(isolateGitConfig)

describe.each([
  ['A', 'running', 'a table'],
  ['F', 'pending', 'a table'],
  // The section the first write adds says `Build: not yet run`: a later save is no edit of that line.
  ['F', 'pending', 'no Execution State section yet']
])('the row of %s (%s) deleted by hand, in a plan committed with %s', (agent, _state, committed) => {
  it('comes back, and the run says so once, naming the agent and how to remove or skip it', async () => {
    session.repo = await tempRepo()
    const root = session.repo.root
    const log = join(root, 'agents.log')
    await session.repo.commit('plan', {
      'plan.md': shellPlan({A: {script: logged(log, 'while [ ! -f go ]; do sleep 0.05; done')}, F: {deps: ['A'], script: logged(log, 'true')}}, {table: committed === 'a table'})
    })
    const plan = join(root, 'plan.md')
    const run = startCli(['run', 'plan.md', '--json'], {cwd: root})
    session.live = run
    const events = liveEvents(run)
    await waitForFirstStart(log)
    const before = await waitForTable(plan, (rows) => rows.A?.status === 'in_progress' && /base: /.test(rows.A.notes))
    const said = events.until((e) => e.type === 'warning' && new RegExp(`deleted the row of ${agent}\\b`).test(e.message ?? ''), `a warning that ${agent}'s row was put back`)
    saveByRename(plan, readFileSync(plan, 'utf8').replace(new RegExp(`^\\| ${agent} \\|.*\\n`, 'm'), ''))
    const warning = await said
    expect(warning.message).toBe(
      `${plan}: a save deleted the row of ${agent} from the Execution State table; mdplan put it back, as the table keeps a row for every agent under ## Agents. To remove ${agent}, delete its \`### ${agent}:\` section under ## Agents; to skip it, set its Status to completed`
    )
    // Back as mdplan had it, in its place.
    const {rows, text} = await readTable(plan)
    expect(rows[agent]).toEqual(before[agent])
    expect(text.indexOf('| A |')).toBeLessThan(text.indexOf('| F |'))
    writeFileSync(join(root, 'go'), '')
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    expect(events.events.filter((e) => e.type === 'warning' && /deleted the row/.test(e.message ?? ''))).toHaveLength(1)
    expect(events.events.filter((e) => e.type === 'human-edit')).toEqual([])
    const after = (await readTable(plan)).rows
    expect([after.A!.status, after.F!.status]).toEqual(['completed', 'completed'])
    expect((await readAgentLog(log)).starts).toEqual(new Map([['A#1', 1], ['F#1', 1]]))
  }, 30_000)
})
