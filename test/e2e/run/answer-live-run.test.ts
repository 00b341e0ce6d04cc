import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {liveRun} from '../../helpers/live-run.js'
import {readTable, runCli, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'

/**
 * `mdplan answer` while a run goes on (B keeps it alive): the answer is picked up by that run, which
 * resumes A at once, and `mdplan answer` says so instead of pointing at a next run.
 */
const session = liveRun()
beforeAll(isolateGitConfig)

describe('mdplan answer during a run', () => {
  it('names the run going on, which resumes the agent with the answer', async () => {
    session.repo = await tempRepo({'README.md': '# test\n'})
    const root = session.repo.root
    const log = join(root, '..', `${root.split('/').pop()}-agents.log`)
    const ask = `if [ -n "$MDPLAN_ANSWER" ]; then echo 'RESULT: SUCCESS'; exit 0; fi
printf 'RESULT: QUESTION\\nQuestion: Go on?\\nContext: none\\nOptions:\\n1. yes\\n2. no\\n'`
    await session.repo.commit('plan', {'plan.md': shellPlan({A: {script: logged(log, ask)}, B: {script: logged(log, 'while [ ! -f go ]; do sleep 0.05; done')}})})
    const plan = join(root, 'plan.md')
    const run = startCli(['run', 'plan.md'], {cwd: root})
    session.live = run
    await waitForTable(plan, (rows) => rows.A?.status === 'needs_input')
    const answer = await runCli(['answer', 'plan.md', 'A', '1'], {cwd: root})
    expect(answer.exitCode, answer.all).toBe(0)
    expect(answer.stdout).toMatch(new RegExp(`^A: answered "Option 1: yes"\\. The run going on \\(pid ${run.pid}\\) resumes A with it once it reads the file\\.$`))
    await waitForTable(plan, (rows) => rows.A?.status === 'completed')
    writeFileSync(join(root, 'go'), '')
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    expect((await readTable(plan)).rows.B!.status).toBe('completed')
    expect((await readAgentLog(log)).starts).toEqual(new Map([['A#1', 2], ['B#1', 1]]))
  }, 60_000)
})
