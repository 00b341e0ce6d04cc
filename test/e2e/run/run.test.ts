import {existsSync} from 'node:fs'
import {mkdir, readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {isAlive} from '../../../src/store/is-alive.js'
import {readTable, runCli, setupPlan, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'

const lines = async (file: string): Promise<string[]> =>
  existsSync(file) ? (await readFile(file, 'utf8')).split('\n').filter(Boolean) : []

describe('mdplan run', () => {
  it('runs a fresh plan in dependency order and records every agent', async () => {
    const {dir, plan} = await setupPlan({
      text: shellPlan({
        A: {script: 'echo A >> order.txt'},
        B: {deps: ['A'], script: 'echo B >> order.txt'},
        C: {deps: ['A'], script: 'echo C >> order.txt'},
        D: {deps: ['B', 'C'], script: 'echo D >> order.txt\necho "RESULT: SUCCESS"\necho "all four ran"'}
      })
    })
    const result = await runCli(['run', plan], {cwd: dir})
    expect(result.exitCode, result.all).toBe(0)
    const order = await lines(join(dir, 'order.txt'))
    expect(order[0]).toBe('A')
    expect(order[3]).toBe('D')
    expect(order.slice(1, 3).sort()).toEqual(['B', 'C'])
    const {rows, meta} = await readTable(plan)
    for (const id of ['A', 'B', 'C', 'D']) {
      expect(rows[id]!.status).toBe('completed')
      expect(rows[id]!.agentId).toMatch(/^sh-[0-9a-f]{8}$/)
      expect(rows[id]!.duration).toMatch(/^\d+(ms|s)$/)
    }
    expect(meta.started).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    expect(meta.last_updated).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    // Logs go under .mdplan/, per plan, agent and attempt; never into the plan.
    expect(await readFile(join(dir, '.mdplan', 'logs', 'plan', 'D.1.log'), 'utf8')).toContain('all four ran')
    expect(existsSync(`${plan}.lock`)).toBe(false)
  })

  it('retries a failing agent with its attempt history, up to the limit', async () => {
    const {dir, plan} = await setupPlan({
      text: shellPlan({
        A: {script: 'n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count\necho "try $n" >&2\n[ "$n" -ge 3 ]'},
        B: {script: 'echo nope >&2; exit 4'}
      })
    })
    const result = await runCli(['run', plan, '--max-attempts', '3'], {cwd: dir})
    expect(result.exitCode).toBe(1)
    const {rows} = await readTable(plan)
    expect(rows.A!.status).toBe('completed')
    expect(rows.A!.notes).toContain('attempt 1: exit 1: try 1')
    expect(rows.A!.notes).toContain('attempt 2: exit 1: try 2')
    expect(rows.B!.status).toBe('failed')
    expect(rows.B!.notes).toBe('attempt 1: exit 4: nope; attempt 2: exit 4: nope; attempt 3: exit 4: nope')
    expect(existsSync(join(dir, '.mdplan', 'logs', 'plan', 'B.3.log'))).toBe(true)
  })

  it('isolates a failure: dependents wait as blocked, independent agents finish', async () => {
    const {dir, plan} = await setupPlan({
      text: shellPlan({
        A: {script: 'exit 1'},
        B: {deps: ['A'], script: 'touch b-ran'},
        C: {deps: ['B'], script: 'touch c-ran'},
        D: {script: 'sleep 0.3; touch d-ran'}
      })
    })
    const result = await runCli(['run', plan, '--max-attempts', '1'], {cwd: dir})
    expect(result.exitCode).toBe(1)
    const {rows} = await readTable(plan)
    expect(rows.A!.status).toBe('failed')
    expect(rows.B).toMatchObject({status: 'pending', notes: 'blocked by: A (failed)'})
    expect(rows.C).toMatchObject({status: 'pending', notes: 'blocked by: B'})
    expect(rows.D!.status).toBe('completed')
    expect(existsSync(join(dir, 'b-ran'))).toBe(false)
  })

  it('stops launching after the first failure with --fail-fast', async () => {
    const {dir, plan} = await setupPlan({
      text: shellPlan({
        A: {script: 'exit 1', estimate: '10m'},
        B: {script: 'touch b-ran', estimate: '1s'}
      })
    })
    const result = await runCli(['run', plan, '--fail-fast', '--concurrency', '1'], {cwd: dir})
    expect(result.exitCode).toBe(1)
    const {rows} = await readTable(plan)
    expect(rows.A).toMatchObject({status: 'failed', notes: 'attempt 1: exit 1'})
    expect(rows.B!.status).toBe('pending')
    expect(existsSync(join(dir, 'b-ran'))).toBe(false)
  })

  it('kills the whole process tree of an agent that runs past --agent-timeout', async () => {
    const {dir, plan} = await setupPlan({
      text: shellPlan({A: {script: 'sleep 30 &\necho $! > child.pid\nwait'}})
    })
    const started = Date.now()
    const result = await runCli(['run', plan, '--agent-timeout', '1s', '--max-attempts', '1'], {cwd: dir})
    expect(result.exitCode).toBe(1)
    expect(Date.now() - started).toBeLessThan(15_000)
    const {rows} = await readTable(plan)
    expect(rows.A).toMatchObject({status: 'failed', notes: 'attempt 1: timed out after 1s'})
    const child = Number(await readFile(join(dir, 'child.pid'), 'utf8'))
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(isAlive(child)).toBe(false)
  })

  it('starts a soft dependent once the files it waits for exist, before the dependency finishes', async () => {
    // A goes on until B has written what it saw (up to 10 s), so B runs before A finishes whenever mdplan starts
    // it on a.txt alone: a fixed 1.5 s in A raced mdplan's poll and B's start on a loaded machine. Were B started
    // only after A finished, it would see a.done and say so. B's b.txt appears whole (a rename), after both looks.
    const {dir, plan} = await setupPlan({
      text: shellPlan(
        {
          A: {script: 'echo shared > a.txt\ni=0; while [ ! -f b.txt ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done\ntouch a.done', creates: ['a.txt']},
          B: {soft: ['A'], script: '{ test -f a.txt && echo saw-a; test -f a.done && echo a-was-done; } > b.tmp\nmv b.tmp b.txt'}
        },
        {}
      )
    })
    const result = await runCli(['run', plan], {cwd: dir})
    expect(result.exitCode, result.all).toBe(0)
    expect(await lines(join(dir, 'b.txt'))).toEqual(['saw-a'])
  })

  it('runs pre-execution verification first, and launches nothing when it fails', async () => {
    const {dir, plan} = await setupPlan({
      text: shellPlan({A: {script: 'touch a-ran'}}, {pre: 'echo "node_modules missing" >&2\nexit 3'})
    })
    const before = await readFile(plan, 'utf8')
    const result = await runCli(['run', plan], {cwd: dir})
    expect(result.exitCode).toBe(1)
    expect(result.all).toContain('pre-execution verification failed')
    expect(result.all).toContain('node_modules missing')
    expect(existsSync(join(dir, 'a-ran'))).toBe(false)
    expect(await readFile(plan, 'utf8')).toBe(before)
  })

  it('runs the build and integration tests after all agents complete and records them', async () => {
    const {dir, plan} = await setupPlan({
      text: shellPlan(
        {A: {script: 'echo 1 > a.txt'}},
        {frontMatter: 'build: "cat a.txt > built.txt"', integration: 'test -f built.txt'}
      )
    })
    const result = await runCli(['run', plan], {cwd: dir})
    expect(result.exitCode, result.all).toBe(0)
    const {meta} = await readTable(plan)
    expect(meta.build).toBe('pass')
    expect(meta.integration).toBe('pass')

    const failing = await setupPlan({text: shellPlan({A: {script: 'true'}}, {integration: 'exit 1'})})
    expect((await runCli(['run', failing.plan], {cwd: failing.dir})).exitCode).toBe(1)
    expect((await readTable(failing.plan)).meta.integration).toBe('fail (1 attempt)')
    expect((await runCli(['run', failing.plan], {cwd: failing.dir})).exitCode).toBe(1)
    expect((await readTable(failing.plan)).meta.integration).toBe('fail (2 attempts)')
  })

  it('leaves interrupted agents in_progress on Ctrl-C (exit 130) and resumes them on the next run', async () => {
    const {dir, plan} = await setupPlan({
      text: shellPlan({
        A: {script: 'echo run >> a.runs\n[ -f go ] || sleep 30\ntouch a.done'},
        B: {deps: ['A'], script: 'touch b.done'}
      })
    })
    const run = startCli(['run', plan], {cwd: dir})
    const rows = await waitForTable(plan, (r) => r.A?.status === 'in_progress' && r.A.agentId !== '')
    const agentId = rows.A!.agentId
    await waitFor(() => existsSync(join(dir, 'a.runs')))
    run.kill('SIGINT')
    const result = await run
    expect(result.exitCode).toBe(130)
    const after = await readTable(plan)
    expect(after.rows.A).toMatchObject({status: 'in_progress', agentId})
    expect(after.rows.B!.status).toBe('pending')
    expect(existsSync(`${plan}.lock`)).toBe(false)

    await writeFile(join(dir, 'go'), '')
    const again = await runCli(['run', plan], {cwd: dir})
    expect(again.exitCode, again.all).toBe(0)
    const final = await readTable(plan)
    expect(final.rows.A!.status).toBe('completed')
    // The shell cannot resume a session: the agent was relaunched, and the row says so.
    expect(final.rows.A!.notes).toBe('')
    expect(final.rows.B!.status).toBe('completed')
    expect(await lines(join(dir, 'a.runs'))).toHaveLength(2)
  })

  it('resumes from the file: completed skipped, failed retried with history, needs_input waits', async () => {
    const text = shellPlan({
      A: {script: 'touch a-ran'},
      B: {script: 'echo "$MDPLAN_ATTEMPT $MDPLAN_PREVIOUS_FAILURE" > b-attempt'},
      C: {script: 'touch c-ran'},
      D: {deps: ['C'], script: 'touch d-ran'}
    })
      .replace('| A | pending | — | — | |', '| A | completed | sh-00000001 | 2s | |')
      .replace('| B | pending | — | — | |', '| B | failed | sh-00000002 | 1s | attempt 1: boom |')
      .replace('| C | pending | — | — | |', '| C | needs_input | sh-00000003 | 1s | question: which db? |')
    const {dir, plan} = await setupPlan({text})
    const result = await runCli(['run', plan], {cwd: dir})
    expect(result.exitCode).toBe(1)
    const {rows} = await readTable(plan)
    expect(existsSync(join(dir, 'a-ran'))).toBe(false)
    expect(rows.A).toMatchObject({status: 'completed', agentId: 'sh-00000001', duration: '2s'})
    expect(rows.B!.status).toBe('completed')
    expect(await readFile(join(dir, 'b-attempt'), 'utf8')).toBe('2 boom\n')
    expect(rows.B!.notes).toContain('attempt 1: boom')
    expect(rows.C!.status).toBe('needs_input')
    expect(rows.D).toMatchObject({status: 'pending', notes: 'blocked by: C (needs input)'})
  })

  it('follows hand edits made during a run: pending re-queues, completed skips', async () => {
    const text = shellPlan({
      A: {script: 'echo A >> runs\nwhile [ ! -f go ]; do sleep 0.05; done'},
      B: {deps: ['A'], script: 'echo B >> runs'},
      C: {script: 'echo C >> runs'}
    }).replace('| C | pending | — | — | |', '| C | completed | sh-0000000c | 1s | |')
    const {dir, plan} = await setupPlan({text})
    const run = startCli(['run', plan], {cwd: dir})
    await waitForTable(plan, (r) => r.A?.status === 'in_progress')
    await waitFor(async () => (await lines(join(dir, 'runs'))).includes('A'))
    // A person marks B done by hand and asks for C to run again, with an edit elsewhere too.
    const current = await readFile(plan, 'utf8')
    await writeFile(
      plan,
      current
        .replace(/\| B \| pending \|/, '| B | completed |')
        .replace(/\| C \| completed \|/, '| C | pending |')
        .replace('# Parallel Plan: test', '# Parallel Plan: test (edited)')
    )
    await waitFor(async () => (await lines(join(dir, 'runs'))).includes('C'))
    await writeFile(join(dir, 'go'), '')
    const result = await run
    expect(result.exitCode, result.all).toBe(0)
    const runs = await lines(join(dir, 'runs'))
    expect(runs).toContain('C')
    expect(runs).not.toContain('B')
    const final = await readTable(plan)
    expect(final.text).toContain('# Parallel Plan: test (edited)')
    expect(final.rows.B!.status).toBe('completed')
    expect(final.rows.C!.status).toBe('completed')
  })

  it('survives SIGKILL: the next run finishes every agent and never reruns a completed one', async () => {
    const agents: Record<string, {deps?: string[]; script: string}> = {}
    for (let index = 0; index < 12; index++) {
      const id = `A${index}`
      agents[id] = {deps: index >= 4 ? [`A${index - 4}`] : [], script: `echo ${id} >> runs\nsleep 0.2`}
    }
    const {dir, plan} = await setupPlan({text: shellPlan(agents)})
    const run = startCli(['run', plan, '--concurrency', '2'], {cwd: dir})
    await waitForTable(plan, (r) => Object.values(r).filter((row) => row.status === 'completed').length >= 3)
    run.kill('SIGKILL')
    await run
    const {rows} = await readTable(plan)
    const completedBefore = Object.entries(rows)
      .filter(([, row]) => row.status === 'completed')
      .map(([id]) => id)
    expect(existsSync(`${plan}.lock`)).toBe(true)

    const again = await runCli(['run', plan], {cwd: dir})
    expect(again.exitCode, again.all).toBe(0)
    const final = await readTable(plan)
    expect(Object.values(final.rows).every((row) => row.status === 'completed')).toBe(true)
    const runs = await lines(join(dir, 'runs'))
    for (const id of completedBefore) expect(runs.filter((r) => r === id)).toHaveLength(1)
  })

  it('keeps a tracked Mermaid graph current and never touches the hand-drawn picture', async () => {
    const text = shellPlan({A: {script: 'true'}, B: {deps: ['A'], script: 'true'}}).replace(
      '## Execution State',
      '## DAG Visualization\n\n```\nA ──→ B\n```\n\n## Execution State'
    )
    const {dir, plan} = await setupPlan({text})
    expect((await runCli(['graph', plan, '--write'], {cwd: dir})).exitCode).toBe(0)
    expect(await readFile(plan, 'utf8')).toContain('class A,B pending')
    const result = await runCli(['run', plan], {cwd: dir})
    expect(result.exitCode, result.all).toBe(0)
    const after = await readFile(plan, 'utf8')
    expect(after).toContain('```\nA ──→ B\n```')
    expect(after).toMatch(/```mermaid[\s\S]*class A,B completed[\s\S]*```/)
    expect((await readTable(plan)).rows.B!.status).toBe('completed')
  })

  it('gives a plan with no Execution State one, stamps Started, and sees no hand edits or stale saves that nobody made', async () => {
    const {dir, plan} = await setupPlan({text: shellPlan({A: {script: 'true'}, B: {deps: ['A'], script: 'true'}}, {table: false})})
    const result = await runCli(['run', plan], {cwd: dir})
    expect(result.exitCode, result.all).toBe(0)
    expect(result.stdout).not.toContain('hand edit')
    // Outside git, nothing comes between the write that adds the section and the next one: no save was made.
    expect(result.all).not.toMatch(/warning: (?!git: not a git repository)/)
    const {rows, meta} = await readTable(plan)
    expect(Object.keys(rows)).toEqual(['A', 'B'])
    expect(meta.started).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    expect(meta.build).toBe('not yet run')
  })

  it('prints the plan of a dry run and changes nothing', async () => {
    const {dir, plan} = await setupPlan({
      text: shellPlan({A: {script: 'touch a-ran', estimate: '1m'}, B: {deps: ['A'], script: 'touch b-ran', estimate: '2m'}})
    })
    const before = await readFile(plan, 'utf8')
    const result = await runCli(['run', plan, '--dry-run'], {cwd: dir})
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toMatch(/t\+0ms\s+A: a-step[\s\S]*touch a-ran[\s\S]*t\+1m 00s\s+B: b-step/)
    expect(result.stdout).toContain('Estimated makespan: 3m 00s')
    expect(await readFile(plan, 'utf8')).toBe(before)
    expect(existsSync(join(dir, 'a-ran'))).toBe(false)
  })

  it('--dry-run with --cwd reads the plan where it was named, as the run itself does', async () => {
    const {dir, plan} = await setupPlan({text: shellPlan({A: {script: 'touch a-ran'}})})
    await mkdir(join(dir, 'work'))
    const dry = await runCli(['run', 'plan.md', '--dry-run', '--cwd', 'work'], {cwd: dir})
    expect(dry.exitCode, dry.stderr).toBe(0)
    expect(dry.stdout).toContain('touch a-ran')
    const real = await runCli(['run', 'plan.md', '--cwd', 'work'], {cwd: dir})
    expect(real.exitCode, real.stderr).toBe(0)
    expect(existsSync(join(dir, 'work', 'a-ran'))).toBe(true)
    expect((await readTable(plan)).rows.A!.status).toBe('completed')
  })

  it('exits 2 on an invalid plan and 3 when another run holds the lock', async () => {
    const invalid = await setupPlan({text: shellPlan({A: {deps: ['Q'], script: 'true'}})})
    const before = await readFile(invalid.plan, 'utf8')
    const bad = await runCli(['run', invalid.plan], {cwd: invalid.dir})
    expect(bad.exitCode).toBe(2)
    expect(bad.stderr).toMatch(/plan\.md:\d+:\d+: .*`Q`.*\[unknown-dependency\]/)
    expect(await readFile(invalid.plan, 'utf8')).toBe(before)

    const {dir, plan} = await setupPlan({text: shellPlan({A: {script: 'while [ ! -f go ]; do sleep 0.05; done'}})})
    const first = startCli(['run', plan], {cwd: dir})
    await waitForTable(plan, (r) => r.A?.status === 'in_progress')
    const second = await runCli(['run', plan], {cwd: dir})
    expect(second.exitCode).toBe(3)
    expect(second.stderr).toMatch(/pid \d+/)
    await writeFile(join(dir, 'go'), '')
    expect((await first).exitCode).toBe(0)
  })
})

async function waitFor(predicate: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
