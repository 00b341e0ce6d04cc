import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, startCli, waitForTable} from '../../helpers/run-cli.js'

/**
 * Plans of plans, end to end: real `mdplan run` processes in real git
 * repositories, shell agents that log every start to one file (counted from
 * the agents' side: one line per attempt, at every level).
 */
let repo: TempRepo | undefined
beforeAll(isolateGitConfig)
afterEach(async () => {
  await repo?.cleanup()
  repo = undefined
})

/** A plan of shell agents; `plan` agents name a child plan instead of a script. */
function plan(title: string, agents: Record<string, {deps?: string[]; plan?: string; script?: string}>): string {
  const lines = ['---', 'runner: shell', 'max_attempts: 2', '---', '', `# Parallel Plan: ${title}`, '', '## Agents', '']
  for (const [id, agent] of Object.entries(agents)) {
    lines.push(`### ${id}: ${id.toLowerCase()}`, `- **depends_on**: [${(agent.deps ?? []).join(', ')}]`)
    if (agent.plan) lines.push(`- **plan**: ${agent.plan}`)
    else lines.push('- **prompt**: |', ...agent.script!.split('\n').map((line) => `    ${line}`))
    lines.push('')
  }
  return lines.join('\n')
}

/** A script that logs `<plan>/<agent>` to launches.log, then does `then`. */
const logs = (name: string, then = ''): string => `echo "${name} $MDPLAN_AGENT_ID" >> launches.log${then ? `\n${then}` : ''}`
const launches = (root: string): string[] => readFileSync(join(root, 'launches.log'), 'utf8').trim().split('\n').map((line) => line.split(' ')[0]!)
const count = (lines: string[], name: string): number => lines.filter((line) => line === name).length

describe('plans of plans', () => {
  it('runs a parent with two child plans and a plain agent, each agent once, the cap shared across the tree', async () => {
    repo = await tempRepo({
      'plans/parent.md': plan('Parent', {
        A: {script: logs('parent/A', 'sleep 0.2')},
        B: {deps: ['A'], plan: 'api.md'},
        C: {deps: ['A'], plan: 'ui.md'},
        D: {deps: ['B', 'C'], script: logs('parent/D')}
      }),
      'plans/api.md': plan('Api', {X: {script: logs('api/X', 'sleep 0.3')}, Y: {script: logs('api/Y', 'sleep 0.3')}, Z: {deps: ['X', 'Y'], script: logs('api/Z')}}),
      'plans/ui.md': plan('Ui', {P: {script: logs('ui/P', 'sleep 0.3')}, Q: {deps: ['P'], script: logs('ui/Q')}})
    })
    const result = await runCli(['run', 'plans/parent.md', '--json', '--concurrency', '3'], {cwd: repo.root})
    expect(result.exitCode, result.all).toBe(0)
    const lines = launches(repo.root)
    for (const name of ['parent/A', 'parent/D', 'api/X', 'api/Y', 'api/Z', 'ui/P', 'ui/Q']) expect(count(lines, name), name).toBe(1)
    const {rows} = await readTable(join(repo.root, 'plans/parent.md'))
    expect(rows.B!.status).toBe('completed')
    expect(rows.B!.notes).toContain('child: 3/3 completed')
    expect(rows.C!.notes).toContain('child: 2/2 completed')
    for (const child of ['plans/api.md', 'plans/ui.md']) {
      const table = await readTable(join(repo.root, child))
      expect(Object.values(table.rows).every((row) => row.status === 'completed'), child).toBe(true)
    }
    // The children's events come up marked with their plan, and the cap holds across the tree.
    const events = result.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as {type: string; plan?: string; concurrency?: number; event?: {type: string; concurrency?: number}})
    const childStarts = events.filter((event) => event.type === 'child' && event.event?.type === 'run-started')
    expect(childStarts.map((event) => event.plan!.replace(/.*plans\//, '')).sort()).toEqual(['api.md', 'ui.md'])
    // B and C launch together after A with 3 slots: one takes 1, the other 2 (never 3 + 3).
    expect(childStarts.map((event) => event.event!.concurrency!).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(3)
  })

  it('passes a question up two levels, takes the answer down from the top, and completes', async () => {
    const asks = [
      'if [ -z "$MDPLAN_ANSWER" ]; then',
      "  printf 'RESULT: QUESTION\\nQuestion: Which store?\\nContext: the plan names none\\nResume State:\\n    step 2 of 3\\nOptions:\\n1. Redis\\n2. SQLite\\n'",
      '  exit 0',
      'fi',
      'echo "deep/Q $MDPLAN_ANSWER" >> answers.log'
    ].join('\n')
    repo = await tempRepo({
      'plans/top.md': plan('Top', {T: {plan: 'mid.md'}, U: {deps: ['T'], script: logs('top/U')}}),
      'plans/mid.md': plan('Mid', {M: {plan: 'deep.md'}}),
      'plans/deep.md': plan('Deep', {P: {script: logs('deep/P')}, Q: {deps: ['P'], script: `${logs('deep/Q')}\n${asks}`}})
    })
    const first = await runCli(['run', 'plans/top.md'], {cwd: repo.root})
    expect(first.exitCode, first.all).toBe(1)
    for (const [file, agent] of [['plans/top.md', 'T'], ['plans/mid.md', 'M'], ['plans/deep.md', 'Q']] as const) {
      const {rows} = await readTable(join(repo.root, file))
      expect(rows[agent]!.status, `${file} ${agent}`).toBe('needs_input')
    }
    const top = readFileSync(join(repo.root, 'plans/top.md'), 'utf8')
    // The question, context and options unchanged; the Resume State wraps the child's, which wraps the grandchild's.
    expect(top).toContain('### T: Which store?')
    expect(top).toContain('2. SQLite')
    expect(top).toMatch(/plan: mid\.md\nagent: M\nstate: \|\n {2}plan: deep\.md\n {2}agent: Q\n {2}state: \|\n {4}step 2 of 3/)
    for (const file of ['plans/top.md', 'plans/mid.md', 'plans/deep.md']) expect((await runCli(['validate', file], {cwd: repo.root})).exitCode, file).toBe(0)

    const answered = await runCli(['answer', 'plans/top.md', 'T', '2'], {cwd: repo.root})
    expect(answered.exitCode, answered.all).toBe(0)
    expect(answered.stdout).toContain('plans/mid.md')
    expect(readFileSync(join(repo.root, 'plans/deep.md'), 'utf8')).toMatch(/- \*\*answer\*\*: Option 2: SQLite/)

    const second = await runCli(['run', 'plans/top.md'], {cwd: repo.root})
    expect(second.exitCode, second.all).toBe(0)
    expect(readFileSync(join(repo.root, 'answers.log'), 'utf8')).toBe('deep/Q Option 2: SQLite\n')
    const lines = launches(repo.root)
    // P completed in the first run and is not run again; Q ran once to ask and once with the answer.
    expect(count(lines, 'deep/P')).toBe(1)
    expect(count(lines, 'deep/Q')).toBe(2)
    expect(count(lines, 'top/U')).toBe(1)
  })

  it('fails the parent agent naming the child agent, and retries the child from the parent', async () => {
    repo = await tempRepo({
      'plans/parent.md': plan('Parent', {C: {plan: 'child.md'}}),
      // F fails on its first attempt of each child run and succeeds once a marker exists.
      'plans/child.md': plan('Child', {F: {script: logs('child/F', '[ -f fixed ] || { echo "tests fail" >&2; exit 1; }')}}).replace('max_attempts: 2', 'max_attempts: 1')
    })
    const first = await runCli(['run', 'plans/parent.md', '--max-attempts', '1'], {cwd: repo.root})
    expect(first.exitCode, first.all).toBe(1)
    const {rows} = await readTable(join(repo.root, 'plans/parent.md'))
    expect(rows.C!.status).toBe('failed')
    expect(rows.C!.notes).toMatch(/attempt 1: child child\.md: F failed/)
    await repo.write('fixed', '')
    // A person re-queues the parent agent; the child's failed row is retried by the child's own run.
    await repo.write('plans/parent.md', readFileSync(join(repo.root, 'plans/parent.md'), 'utf8').replace('| C | failed |', '| C | pending |'))
    const second = await runCli(['run', 'plans/parent.md'], {cwd: repo.root})
    expect(second.exitCode, second.all).toBe(0)
    expect(count(launches(repo.root), 'child/F')).toBe(2)
  })

  it('after a SIGKILL of the parent mid-run, a rerun runs no completed agent twice at any level', async () => {
    repo = await tempRepo({
      'plans/parent.md': plan('Parent', {A: {script: logs('parent/A')}, B: {deps: ['A'], plan: 'child.md'}, C: {deps: ['B'], script: logs('parent/C')}}),
      'plans/child.md': plan('Child', {X: {script: logs('child/X')}, Y: {deps: ['X'], script: logs('child/Y', 'touch y-started; sleep 4')}})
    })
    const run = startCli(['run', 'plans/parent.md'], {cwd: repo.root})
    await waitForTable(join(repo.root, 'plans/child.md'), (rows) => rows.Y?.status === 'in_progress', 20_000)
    for (let waited = 0; !existsSyncSafe(join(repo.root, 'y-started')); waited += 50) {
      if (waited > 10_000) throw new Error('Y never started')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    run.kill('SIGKILL')
    await run
    // B runs as a job of this machine, and its child run goes on without the killed parent: the rerun re-attaches to
    // B's job, which finishes Y where it was (no level starts a completed or running agent again), then runs C.
    const again = await runCli(['run', 'plans/parent.md'], {cwd: repo.root})
    expect(again.exitCode, again.all).toBe(0)
    const lines = launches(repo.root)
    expect(count(lines, 'parent/A')).toBe(1)
    expect(count(lines, 'child/X')).toBe(1)
    expect(count(lines, 'child/Y')).toBe(1)
    expect(count(lines, 'parent/C')).toBe(1)
  }, 60_000)

  it('status shows the tree and --json nests it; graph draws a child plan as a subgraph', async () => {
    repo = await tempRepo({
      'plans/parent.md': plan('Parent', {A: {script: logs('parent/A')}, B: {deps: ['A'], plan: 'child.md'}}),
      'plans/child.md': plan('Child', {X: {script: logs('child/X')}, Y: {deps: ['X'], plan: 'grand.md'}}),
      'plans/grand.md': plan('Grand', {G: {script: logs('grand/G')}})
    })
    expect((await runCli(['run', 'plans/child.md'], {cwd: repo.root})).exitCode).toBe(0)
    const text = await runCli(['status', 'plans/parent.md'], {cwd: repo.root})
    expect(text.stdout).toContain('Child plans:\n  B → plans/child.md: 2 agents: 2 completed\n    Y → plans/grand.md: 1 agent: 1 completed')
    const json = JSON.parse((await runCli(['status', 'plans/parent.md', '--json'], {cwd: repo.root})).stdout) as {children: Array<{agent: string; status: {counts: {completed: number}; children: Array<{agent: string}>}}>}
    expect(json.children[0]!.agent).toBe('B')
    expect(json.children[0]!.status.counts.completed).toBe(2)
    expect(json.children[0]!.status.children[0]!.agent).toBe('Y')
    const report = await runCli(['report', 'plans/parent.md'], {cwd: repo.root})
    expect(report.stdout).toContain('Child plans:\n  B → plans/child.md: 2 agents: 2 completed\n    Y → plans/grand.md: 1 agent: 1 completed')
    const reportJson = JSON.parse((await runCli(['report', 'plans/parent.md', '--json'], {cwd: repo.root})).stdout) as {children: Array<{agent: string}>}
    expect(reportJson.children.map((child) => child.agent)).toEqual(['B'])
    const graph = (await runCli(['graph', 'plans/parent.md'], {cwd: repo.root})).stdout
    expect(graph).toContain('subgraph B["B: b"]\n    B__X["X: x"]\n    subgraph B__Y["Y: y"]\n      B__Y__G["G: g"]\n    end')
    expect(graph).toContain('A --> B')
    expect(graph).toMatch(/class .*B__X.* completed/)
    // The history file records child agents with their parent and a parallel group below the parent agent's.
    expect((await runCli(['history', 'plans/parent.md', '--out', 'h.json'], {cwd: repo.root})).exitCode).toBe(0)
    const history = JSON.parse(readFileSync(join(repo.root, 'h.json'), 'utf8')) as {entries: Array<{plan: string; parallel_group: string; parent?: {plan: string; agent: string}; task_description: string}>}
    const x = history.entries.find((entry) => entry.task_description.startsWith('X:'))!
    expect(x).toMatchObject({plan: 'plans/child.md', parallel_group: 'wave-2/wave-1', parent: {plan: 'plans/parent.md', agent: 'B'}})
    const g = history.entries.find((entry) => entry.task_description.startsWith('G:'))!
    expect(g).toMatchObject({plan: 'plans/grand.md', parallel_group: 'wave-2/wave-2/wave-1', parent: {plan: 'plans/child.md', agent: 'Y'}})
  })

  it('validate reports a cycle of plans and a missing child with both files and positions', async () => {
    repo = await tempRepo({
      'plans/one.md': plan('One', {A: {plan: 'two.md'}, B: {plan: 'gone.md'}}),
      'plans/two.md': plan('Two', {C: {plan: 'one.md'}})
    })
    const result = await runCli(['validate', 'plans/one.md'], {cwd: repo.root})
    expect(result.exitCode).toBe(2)
    expect(result.stdout).toMatch(/plans\/one\.md:\d+:\d+: agent B runs the plan `gone\.md`, which does not exist \(plans\/gone\.md\) \[missing-child-plan\]/)
    expect(result.stdout).toMatch(/plans\/two\.md:\d+:\d+: cycle of plans: plans\/one\.md → plans\/two\.md → plans\/one\.md: .* \[plan-cycle\]/)
    const run = await runCli(['run', 'plans/one.md'], {cwd: repo.root})
    expect(run.exitCode).toBe(2)
    expect(readFileSync(join(repo.root, 'plans/one.md'), 'utf8')).toBe(plan('One', {A: {plan: 'two.md'}, B: {plan: 'gone.md'}}))
  })
})

function existsSyncSafe(path: string): boolean {
  try {
    readFileSync(path)
    return true
  } catch {
    return false
  }
}
