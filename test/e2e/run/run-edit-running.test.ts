import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {readTable, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'
import {logged, readAgentLog, waitForFirstStart} from '../../helpers/agent-log.js'

/**
 * A person sets a running agent's row to `pending`: mdplan keeps its own
 * value (the agent is running), and its events and lines say exactly that,
 * once; no `human-edit` event claims the edit was kept. Real run, real git.
 */
let repo: TempRepo | undefined
beforeAll(isolateGitConfig)
afterEach(async () => {
  await repo?.cleanup()
  repo = undefined
})

describe('a running agent set to pending by hand', () => {
  it('reports that mdplan kept its value, not also "hand edit kept", and the agent runs once', async () => {
    repo = await tempRepo()
    const log = join(repo.root, 'agents.log')
    await repo.commit('plan', {'plan.md': shellPlan({A: {script: logged(log, 'while [ ! -f go ]; do sleep 0.05; done')}})})
    const plan = join(repo.root, 'plan.md')
    const run = startCli(['run', 'plan.md', '--json'], {cwd: repo.root})
    let out = ''
    const said = (text: string): Promise<void> =>
      new Promise((resolve, reject) => {
        const look = (): void => void (out.includes(text) && resolve())
        run.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString()
          look()
        })
        look()
        void run.then((result) => reject(new Error(`the run ended first: ${result.all}`)))
      })
    await waitForFirstStart(log)
    // Saved once mdplan's writes for the launch are on disk (its last, `base:`), as in run-edit-unknown-status:
    // a text read before that write and saved after it is an old buffer's (its row without `base:`), not the
    // one edit this test means.
    await waitForTable(plan, (rows) => rows.A?.status === 'in_progress' && /base: /.test(rows.A.notes))
    writeFileSync(plan, readFileSync(plan, 'utf8').replace(/^\| A \| in_progress \|/m, '| A | pending |'))
    await said("kept mdplan's value")
    writeFileSync(join(repo.root, 'go'), '')
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    const events = result.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as {type: string; agent?: string; column?: string; message?: string})
    expect(events.filter((event) => event.type === 'human-edit')).toEqual([])
    const kept = events.filter((event) => event.type === 'warning' && /^A: Status/.test(event.message ?? ''))
    expect(kept.map((event) => event.message)).toEqual([`A: Status was edited by hand to "pending" while A ran; kept mdplan's value (in_progress)`])
    expect((await readAgentLog(log)).starts).toEqual(new Map([['A#1', 1]]))
    expect((await readTable(plan)).rows.A!.status).toBe('completed')
  })
})
