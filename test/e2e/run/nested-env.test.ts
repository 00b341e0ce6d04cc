import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli} from '../../helpers/run-cli.js'
import {runPlan} from '../../../src/run/run-plan.js'
import type {RunEvent} from '../../../src/events.js'

/**
 * An answer, a resume state or a failure history belongs to one agent: at
 * every depth of nested plans it reaches exactly that agent, never a sibling
 * that inherits the child `mdplan run`'s environment. Real runs in a real git
 * repository; each agent logs what it was given (one line per launch).
 */
let repo: TempRepo | undefined
beforeAll(isolateGitConfig)
afterEach(async () => {
  await repo?.cleanup()
  repo = undefined
})

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

/** Logs what it was given (a shell agent gets its answer, never a resume state: that is for a child plan); asks `question` until it has an answer. */
const asks = (name: string, question: string): string =>
  [
    `echo "${name} answer=$MDPLAN_ANSWER resume=$MDPLAN_RESUME_STATE failure=$MDPLAN_PREVIOUS_FAILURE" >> launches.log`,
    'if [ -z "$MDPLAN_ANSWER" ]; then',
    `  printf 'RESULT: QUESTION\\nQuestion: ${question}\\nContext: only a person knows\\nResume State:\\n    asked ${name}\\nOptions:\\n1. Yes\\n2. No\\n'`,
    '  exit 0',
    'fi'
  ].join('\n')

const lines = (root: string): string[] => readFileSync(join(root, 'launches.log'), 'utf8').trim().split('\n')

async function askTwice(top: string, topAgent: string, leaf: string): Promise<void> {
  const first = await runCli(['run', top], {cwd: repo!.root})
  expect(first.exitCode, first.all).toBe(1)
  expect((await readTable(join(repo!.root, leaf))).rows.X!.status).toBe('needs_input')
  expect((await runCli(['answer', top, topAgent, '1'], {cwd: repo!.root})).exitCode).toBe(0)

  // X resumes with its answer; Y (after X) must still ask its own question, not act on X's answer.
  const second = await runCli(['run', top], {cwd: repo!.root})
  expect(second.exitCode, second.all).toBe(1)
  const leafRows = (await readTable(join(repo!.root, leaf))).rows
  expect(leafRows.X!.status).toBe('completed')
  expect(leafRows.Y!.status, second.all).toBe('needs_input')
  expect((await readTable(join(repo!.root, top))).rows[topAgent]!.status).toBe('needs_input')
  expect(readFileSync(join(repo!.root, top), 'utf8')).toContain(`### ${topAgent}: Which port?`)

  expect((await runCli(['answer', top, topAgent, '2'], {cwd: repo!.root})).exitCode).toBe(0)
  const third = await runCli(['run', top], {cwd: repo!.root})
  expect(third.exitCode, third.all).toBe(0)
  // One line per launch: each agent asked once and ran once with its own answer, and nothing else leaked.
  expect(lines(repo!.root)).toEqual([
    'X answer= resume= failure=',
    'X answer=Option 1: Yes resume= failure=',
    'Y answer= resume= failure=',
    'Y answer=Option 2: No resume= failure='
  ])
}

describe('per-agent variables in nested plans', () => {
  it('two levels: a child agent asks, and its sibling after it still asks its own question', async () => {
    repo = await tempRepo({
      'plans/top.md': plan('Top', {B: {plan: 'child.md'}}),
      'plans/child.md': plan('Child', {X: {script: asks('X', 'Which store?')}, Y: {deps: ['X'], script: asks('Y', 'Which port?')}})
    })
    await askTwice('plans/top.md', 'B', 'plans/child.md')
  })

  it('three levels: the answer goes down to the grandchild that asked, not to its sibling', async () => {
    repo = await tempRepo({
      'plans/top.md': plan('Top', {T: {plan: 'mid.md'}}),
      'plans/mid.md': plan('Mid', {M: {plan: 'deep.md'}}),
      'plans/deep.md': plan('Deep', {X: {script: asks('X', 'Which store?')}, Y: {deps: ['X'], script: asks('Y', 'Which port?')}})
    })
    await askTwice('plans/top.md', 'T', 'plans/deep.md')
  })

  it('a retried child plan does not hand its parent agent failure history to the child agents', async () => {
    repo = await tempRepo({
      'plans/top.md': plan('Top', {B: {plan: 'child.md'}}),
      // F fails on its first launch only; G runs after it.
      'plans/child.md': plan('Child', {
        F: {script: 'echo "F failure=$MDPLAN_PREVIOUS_FAILURE" >> launches.log\nif [ ! -f failed-once ]; then touch failed-once; exit 1; fi'},
        G: {deps: ['F'], script: 'echo "G failure=$MDPLAN_PREVIOUS_FAILURE" >> launches.log'}
      })
    })
    // max_attempts 1 in the child: F fails for good, so B fails; B's second attempt (the parent's
    // max_attempts 2) re-queues F, which passes, and then G runs for the first time.
    const child = join(repo.root, 'plans/child.md')
    await repo.write('plans/child.md', readFileSync(child, 'utf8').replace('max_attempts: 2', 'max_attempts: 1'))
    const run = await runCli(['run', 'plans/top.md'], {cwd: repo.root})
    expect(run.exitCode, run.all).toBe(0)
    expect((await readTable(join(repo.root, 'plans/top.md'))).rows.B!.notes).toMatch(/attempt 1: child child\.md: F failed/)
    // B's failure history was B's: neither F's fresh attempt in the new child run nor G sees it.
    expect(lines(repo.root)).toEqual(['F failure=', 'F failure=', 'G failure='])
  })
})

describe("a child plan's damaged table", () => {
  it('is a pause for the parent agent, not a used attempt: repaired, the child runs and the parent completes', async () => {
    repo = await tempRepo({
      'plans/top.md': plan('Top', {B: {plan: 'child.md'}}),
      'plans/child.md': `${plan('Child', {X: {script: 'echo "X" >> launches.log'}})}\n## Execution State\n\n| Agent | Status | Agent ID | Duration | Notes |\n|---|---|---|---|---|\n| X | pending | — | — | |\n`
    })
    const child = join(repo.root, 'plans/child.md')
    const good = readFileSync(child, 'utf8')
    const events: RunEvent[] = []
    const result = await runPlan({
      file: join(repo.root, 'plans/top.md'),
      cwd: repo.root,
      pollMs: 50,
      rateLimitPauseMs: 300,
      // Valid when the run checked the tree; then a person's edit damages the child's table.
      onPlan: () => writeFileSync(child, good.replace('|---|---|---|---|---|\n', '')),
      onEvent: (event) => {
        events.push(event)
        // The parent waits for the repair: the person repairs it.
        if (event.type === 'paused') writeFileSync(child, good)
      }
    })
    const paused = events.filter((event): event is Extract<RunEvent, {type: 'paused'}> => event.type === 'paused')
    expect(paused.map((event) => event.reason)).toEqual([expect.stringMatching(/^network or server trouble \(child child\.md: its Execution State table is damaged \(line \d+:\d+ \[malformed-table\]\), waiting for its repair\), retrying at /)])
    expect(result.exitCode).toBe(0)
    expect(events.filter((event) => event.type === 'failed')).toEqual([])
    const top = (await readTable(join(repo.root, 'plans/top.md'))).rows.B!
    expect(top.status).toBe('completed')
    expect(top.notes).not.toMatch(/attempt \d+:/)
    expect(lines(repo.root)).toEqual(['X'])
  }, 60_000)
})
