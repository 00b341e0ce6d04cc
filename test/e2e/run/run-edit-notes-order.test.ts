import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {liveRun} from '../../helpers/live-run.js'
import {readTable, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'
import {logged, readAgentLog, waitForFirstStart} from '../../helpers/agent-log.js'
import {liveEvents, saveByRename, withCell} from '../../helpers/live-events.js'

/**
 * A person rearranges the Notes items of a row mdplan does not touch meanwhile (README, "What mdplan
 * writes"): a cell only they changed keeps their value byte for byte, their order included, and when
 * mdplan adds an item later it goes after theirs, which keep their order. Real run, real git, saves
 * by temp + rename while another agent runs.
 */
const session = liveRun()
beforeAll(isolateGitConfig)

describe('Notes items a person reorders in a pending row', () => {
  it('keep the person’s order through every later write, the launch and completion included', async () => {
    session.repo = await tempRepo()
    const log = join(session.repo.root, 'agents.log')
    await session.repo.commit('plan', {
      'plan.md': shellPlan({A: {script: logged(log, 'while [ ! -f go ]; do sleep 0.05; done')}, C: {deps: ['A'], script: logged(log, 'true')}})
    })
    const plan = join(session.repo.root, 'plan.md')
    const run = startCli(['run', 'plan.md', '--json'], {cwd: session.repo.root})
    session.live = run
    const events = liveEvents(run)
    await waitForFirstStart(log)
    await waitForTable(plan, (rows) => rows.A?.status === 'in_progress' && /base: /.test(rows.A.notes))
    const save = async (notes: string): Promise<string> => {
      const merged = events.until((e) => e.type === 'human-edit' && e.agent === 'C' && e.column === 'Notes', `the human-edit of C's Notes to ${notes}`)
      saveByRename(plan, withCell(readFileSync(plan, 'utf8'), 'C', 4, () => notes))
      await merged
      return (await readTable(plan)).rows.C!.notes
    }
    expect(await save('first; second; first')).toBe('first; second; first')
    // The reorder is the person's alone: mdplan wrote nothing into C's row meanwhile.
    expect(await save('second; first; first')).toBe('second; first; first')
    expect(await save('second; first')).toBe('second; first')
    writeFileSync(join(session.repo.root, 'go'), '')
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    const {rows} = await readTable(plan)
    expect(rows.C!.status).toBe('completed')
    // mdplan's own item, added at the launch, follows the person's, which keep their order.
    expect(rows.C!.notes).toMatch(/^second; first; base: [0-9a-f]{12}$/)
    expect((await readAgentLog(log)).starts).toEqual(new Map([['A#1', 1], ['C#1', 1]]))
  }, 30_000)
})
