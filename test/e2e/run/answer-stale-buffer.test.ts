import {readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan} from '../../helpers/run-cli.js'

/**
 * Between runs: an agent asked, the person answered with `mdplan answer`, then saved an editor buffer
 * loaded before the answer (a note typed into the table), which blanks the answer in the file. The next
 * run finds the answer `mdplan answer` kept beside the plan, writes it back, and resumes the agent with it.
 */
let repo: TempRepo | undefined
beforeAll(isolateGitConfig)
afterEach(async () => {
  await repo?.cleanup()
  repo = undefined
})

describe('an answer a stale buffer took away between runs', () => {
  it('is written back and reaches the agent, which runs once more, not asking again', async () => {
    repo = await tempRepo({'README.md': '# test\n'})
    const log = join(repo.root, '..', `${repo.root.split('/').pop()}-agents.log`)
    const got = join(repo.root, '..', `${repo.root.split('/').pop()}-answer`)
    const ask = `if [ -n "$MDPLAN_ANSWER" ]; then printf '%s' "$MDPLAN_ANSWER" > '${got}'; echo 'RESULT: SUCCESS'; exit 0; fi
printf 'RESULT: QUESTION\\nQuestion: Go on?\\nContext: none\\nOptions:\\n1. yes\\n2. no\\n'`
    await repo.commit('plan', {'plan.md': shellPlan({A: {script: logged(log, ask)}})})
    const plan = join(repo.root, 'plan.md')
    expect((await runCli(['run', 'plan.md'], {cwd: repo.root})).exitCode).toBe(1)
    const buffer = readFileSync(plan, 'utf8')
    expect((await runCli(['answer', 'plan.md', 'A', 'yes, go on'], {cwd: repo.root})).exitCode).toBe(0)
    // The editor still holds the file from before the answer; a note typed into A's row, saved by temp + rename.
    const saved = buffer.replace(/^(\| A \| needs_input \|[^|]*\|[^|]*\| )([^|]*)\|$/m, '$1$2; TODO ping Bob |')
    expect(saved).not.toBe(buffer)
    writeFileSync(`${plan}.swp`, saved)
    renameSync(`${plan}.swp`, plan)
    expect(readFileSync(plan, 'utf8')).not.toContain('yes, go on')
    const again = await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(again.exitCode, again.all).toBe(0)
    expect(again.all).toMatch(/A: the answer given with `mdplan answer` at .* \("yes, go on"\) was no longer in .*plan\.md/)
    expect(readFileSync(got, 'utf8')).toBe('yes, go on')
    const {rows, text} = await readTable(plan)
    expect(rows.A!.status).toBe('completed')
    expect(rows.A!.notes).toContain('TODO ping Bob')
    expect(text).toMatch(/- \*\*answer\*\*: yes, go on/)
    // Counted from the agent's side: the run that asked, and the one that resumed with the answer.
    const side = await readAgentLog(log)
    expect(side.starts).toEqual(new Map([['A#1', 2]]))
  }, 60_000)

  it('an agent that asks the same question again after its answer is not given the old one: it waits for a new answer', async () => {
    repo = await tempRepo({'README.md': '# test\n'})
    const log = join(repo.root, '..', `${repo.root.split('/').pop()}-agents.log`)
    // Asks whatever it is told: the same question, every time.
    const ask = "printf 'RESULT: QUESTION\\nQuestion: Go on?\\nContext: none\\nOptions:\\n1. yes\\n2. no\\n'"
    await repo.commit('plan', {'plan.md': shellPlan({A: {script: logged(log, ask)}})})
    expect((await runCli(['run', 'plan.md'], {cwd: repo.root})).exitCode).toBe(1)
    expect((await runCli(['answer', 'plan.md', 'A', '1'], {cwd: repo.root})).exitCode).toBe(0)
    // Resumed with the answer, A asks again: a new, unanswered entry.
    expect((await runCli(['run', 'plan.md'], {cwd: repo.root})).exitCode).toBe(1)
    const third = await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(third.exitCode, third.all).toBe(1)
    expect(third.all).not.toMatch(/was no longer in/)
    expect((await readAgentLog(log)).starts).toEqual(new Map([['A#1', 2]]))
    expect((await readTable(join(repo.root, 'plan.md'))).rows.A!.status).toBe('needs_input')
  }, 60_000)
})
