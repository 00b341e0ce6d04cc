import {readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {liveRun} from '../../helpers/live-run.js'
import {readTable, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'
import {logged, readAgentLog, readEvents, waitForFirstStart} from '../../helpers/agent-log.js'

/**
 * A person types into the row of an agent that is running (README, "What mdplan writes"): their own
 * Notes items keep their exact text through every later write of the row, the completion included;
 * what mdplan does not take (Status, Agent ID, its own `base:` item) is said once and noted in the row
 * as a `conflict:` item that stays. Real run, real git, saves in place and by temp + rename.
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

/** Replace one row's Notes cell (the last cell) in `text`. */
function withNotes(text: string, agent: string, edit: (notes: string) => string): string {
  const line = text.split('\n').find((l) => l.startsWith(`| ${agent} |`))!
  const cells = line.split('|')
  const notes = cells[5]!.trim()
  cells[5] = ` ${edit(notes)} `
  return text.replace(line, cells.join('|'))
}

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

async function running(): Promise<{plan: string; log: string; go: () => void; run: ReturnType<typeof startCli>}> {
  session.repo = await tempRepo()
  const log = join(session.repo.root, 'agents.log')
  await session.repo.commit('plan', {'plan.md': shellPlan({A: {script: logged(log, 'while [ ! -f go ]; do sleep 0.05; done')}, B: {deps: ['A'], script: 'true'}})})
  const plan = join(session.repo.root, 'plan.md')
  const run = startCli(['run', 'plan.md', '--json'], {cwd: session.repo.root})
  session.live = run
  const root = session.repo.root
  return {plan, log, run, go: () => writeFileSync(join(root, 'go'), '')}
}

describe.each(Object.entries(saves))('a note typed into a running row (saved %s)', (_how, save) => {
  it('is kept through the completion, its exact text, with no conflict', async () => {
    const {plan, log, run, go} = await running()
    await waitForFirstStart(log)
    await waitForTable(plan, (rows) => rows.A?.status === 'in_progress' && /base: /.test(rows.A.notes))
    save(plan, withNotes(readFileSync(plan, 'utf8'), 'A', (notes) => `${notes}; TODO: ask Bob\\; and Carol`))
    // The save is merged by the write it causes: wait for the run to say so before the agent ends.
    await said(run, /"human-edit"|edited by hand/)
    go()
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    const {rows, text} = await readTable(plan)
    expect(rows.A!.status).toBe('completed')
    expect(rows.A!.notes).toMatch(/^base: [0-9a-f]{12}; TODO: ask Bob\\; and Carol$/)
    expect(text).toMatch(/\| A \| completed \| sh-\S+ \| \S+ \| base: [0-9a-f]{12}; TODO: ask Bob\\; and Carol \|\n/)
    // Nothing was refused: no conflict, no "kept mdplan's value", and the edit is a human-edit.
    const events = result.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as {type: string; agent?: string; column?: string; value?: string; message?: string})
    expect(events.filter((e) => e.type === 'warning' && /edited by hand/.test(e.message ?? ''))).toEqual([])
    expect(events.filter((e) => e.type === 'human-edit').map((e) => [e.agent, e.column])).toEqual([['A', 'Notes']])
    expect((await readAgentLog(log)).starts).toEqual(new Map([['A#1', 1]]))
    expect(readEvents(result.stdout).peak).toBeLessThanOrEqual(1)
  }, 30_000)

  it('typed into an editor buffer loaded before mdplan wrote `base:` into the row: both stay', async () => {
    const {plan, log, run, go} = await running()
    await waitForTable(plan, (rows) => rows.A?.status === 'in_progress')
    const buffer = readFileSync(plan, 'utf8')
    await waitForFirstStart(log)
    await waitForTable(plan, (rows) => /base: /.test(rows.A?.notes ?? ''))
    save(plan, withNotes(buffer, 'A', (notes) => (notes ? `${notes}; ` : '') + 'TODO: ask Bob'))
    await said(run, /"human-edit"|edited by hand/)
    go()
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    const {rows} = await readTable(plan)
    expect(rows.A!.status).toBe('completed')
    // The buffer had no `base:`: whether mdplan reads that as the person's deletion (noted) or as an old buffer, its item stays, and theirs.
    // (The buffer may have been read before or after that write landed: the items' order follows.)
    const items = rows.A!.notes.split('; ').filter((item) => !item.startsWith("conflict: Notes kept mdplan's base"))
    expect(items.sort()).toEqual(['TODO: ask Bob', expect.stringMatching(/^base: [0-9a-f]{12}$/)])
    expect((await readAgentLog(log)).starts).toEqual(new Map([['A#1', 1]]))
  }, 30_000)

  it('a status, an Agent ID and mdplan’s own item edited in a running row: not taken, said once, noted in the row for good; the person’s item stays', async () => {
    const {plan, log, run, go} = await running()
    await waitForFirstStart(log)
    const rows = await waitForTable(plan, (r) => r.A?.status === 'in_progress' && /base: /.test(r.A.notes))
    const id = rows.A!.agentId
    const text = readFileSync(plan, 'utf8')
    // Marked done by hand, the id cleared, and the Notes replaced: mdplan's `base:` gone, the person's text in.
    save(plan, withNotes(text, 'A', () => 'done by hand').replace(`| A | in_progress | ${id} |`, '| A | completed | — |'))
    await waitForTable(plan, (r) => /conflict: /.test(r.A?.notes ?? ''))
    go()
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    const final = (await readTable(plan)).rows.A!
    expect(final.status).toBe('completed')
    expect(final.agentId).toBe(id)
    // mdplan kept its `job:` and `base:` items; the completion then drops the job, as in every completed row.
    const base = rows.A!.notes.split('; ').filter((item) => !item.startsWith('job: '))
    expect(final.notes).toBe(`done by hand; ${base.join('; ')}; conflict: Status kept in_progress, Agent ID kept ${id}, Notes kept mdplan's job and base`)
    const events = result.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as {type: string; message?: string})
    expect(events.filter((e) => e.type === 'human-edit')).toEqual([])
    expect(events.filter((e) => e.type === 'warning' && /edited by hand/.test(e.message ?? '')).map((e) => e.message)).toEqual([
      `A: Status was edited by hand to "completed" while A ran; kept mdplan's value (in_progress)`,
      `A: Agent ID was edited by hand to "" while A ran; kept mdplan's value`,
      `A: Notes was edited by hand to "done by hand" while A ran; kept mdplan's job and base, and the items you wrote`
    ])
    // The run went on as mdplan knew it: A ran once, to its end, and B after it.
    expect((await readAgentLog(log)).starts).toEqual(new Map([['A#1', 1]]))
    expect((await readTable(plan)).rows.B!.status).toBe('completed')
  }, 30_000)
})
