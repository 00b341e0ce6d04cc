import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {Command} from 'commander'
import {beforeAll, describe, expect, it} from 'vitest'
import {registerAnswer} from '../../../src/cli/commands/answer.js'
import type {Io} from '../../../src/cli/io.js'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {assemblePrompt} from '../../../src/protocol/assemble-prompt.js'
import {interpretResult} from '../../../src/protocol/interpret-result.js'
import {readAnswers} from '../../../src/protocol/read-answers.js'
import {upsertOpenQuestion} from '../../../src/protocol/upsert-open-question.js'
import {claudeRunner} from '../../../src/runners/claude/claude.js'
import {PlanStore} from '../../../src/store/plan-store.js'
import {agentsDir, readArgvLog, request, tempDir} from '../../helpers/runner-support.js'

const plan = `# Plan

## Agents

### A: cache
- **depends_on**: []
- **prompt**: |
    Build the cache.

## Execution State

| Agent | Status | Agent ID | Duration | Notes |
|-------|--------|----------|----------|-------|
| A | pending | — | — | |
`

async function answer(args: string[], cwd: string): Promise<{code: number; stdout: string; stderr: string}> {
  let code = -1
  let stdout = ''
  let stderr = ''
  const io: Io = {stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), isTTY: false, env: {}, cwd}
  const program = new Command('mdplan').exitOverride()
  registerAnswer(program, io, (c) => void (code = c))
  await program.parseAsync(['answer', ...args], {from: 'user'})
  return {code, stdout, stderr}
}

beforeAll(() => {
  process.env.MDPLAN_CLAUDE_BIN = join(agentsDir, 'claude')
})

describe('mdplan answer', () => {
  it('exits 2 with a clear message when the agent has no open question', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'plan.md'), plan)
    const missing = await answer(['plan.md', 'A', 'Option 1'], dir)
    expect(missing.code).toBe(2)
    expect(missing.stderr).toBe('mdplan answer: agent A has no open question in plan.md (it has no ## Open Questions)\n')
    const unknown = await answer(['plan.md', 'Q', 'x'], dir)
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('plan.md has no agent Q')
    expect(readFileSync(join(dir, 'plan.md'), 'utf8')).toBe(plan)
    expect((await answer(['nope.md', 'A', 'x'], dir)).code).toBe(2)
  })

  it('question → needs_input entry → answer → the same session resumes with the answer', async () => {
    const dir = tempDir()
    const file = join(dir, 'plan.md')
    writeFileSync(file, plan)
    const env = {FAKE_SCENARIO: 'question', FAKE_ARGV_LOG: join(dir, 'argv.log'), FAKE_STATE_DIR: join(dir, 'state')}

    // Run 1: the agent asks.
    const store = await PlanStore.open(file)
    const agent = store.plan.agents[0]!
    const first = await claudeRunner.run(request(dir, {agent, prompt: assemblePrompt({plan: store.plan, agent}), options: {env}}))
    const outcome = interpretResult(first)
    expect(outcome.kind).toBe('question')
    expect(outcome.question).toEqual({
      question: 'Which store should the cache use?',
      context: 'The plan names no store; both fit the Shared Contract.',
      resumeState: 'step: 3 of 5\nwritten: src/cache.ts',
      options: ['Redis', 'SQLite']
    })
    await store.editSection('Open Questions', (section, current) => upsertOpenQuestion(section, {agent: 'A', ...outcome.question!}, current.eol, current))
    const written = readFileSync(file, 'utf8')
    expect(written).toContain('## Open Questions\n\n### A: Which store should the cache use?\n')
    expect(written.endsWith('| A | pending | — | — | |\n')).toBe(true)
    expect(readAnswers(parsePlan(written, file))[0]!.answer).toBeUndefined()

    // The person answers.
    const answered = await answer(['plan.md', 'A', 'Option 2'], dir)
    expect(answered).toMatchObject({code: 0, stderr: ''})
    expect(answered.stdout).toContain('A: answered "Option 2: SQLite"')
    const after = readFileSync(file, 'utf8')
    expect(after).toBe(written.replace('- **answer**:\n', '- **answer**: Option 2\n'))

    // Run 2: resume the same session with the resume state and the answer.
    const entry = readAnswers(parsePlan(after, file))[0]!
    expect(entry.answer).toBe('Option 2')
    const followUp = assemblePrompt({
      plan: parsePlan(after, file),
      agent,
      answer: {question: entry.question, resumeState: entry.resumeState, answer: entry.answer!, options: entry.options},
      resuming: true
    })
    const second = await claudeRunner.run(request(dir, {agent, prompt: followUp, resume: {sessionId: first.agentId!}, options: {env}}))
    expect(second.ok).toBe(true)
    expect(interpretResult(second).kind).toBe('completed')
    const calls = readArgvLog(join(dir, 'argv.log'))
    expect(calls[1]!.argv.slice(4, 6)).toEqual(['-r', first.agentId])
    expect(calls[1]!.argv.at(-1)).toBe(followUp)
    expect(followUp).toContain('Answer: Option 2: SQLite')
    expect(followUp).toContain('step: 3 of 5\nwritten: src/cache.ts')
    expect(followUp).toContain("Resume the process with that state and the user's answer, and continue from where you left off.")
    expect(second.finalText).toContain(followUp)
  })

  it('replaces an earlier answer', async () => {
    const dir = tempDir()
    const file = join(dir, 'plan.md')
    writeFileSync(
      file,
      plan.replace('## Execution State', '## Open Questions\n\n### A: Tabs?\n\n- **answer**: yes\n\n## Execution State')
    )
    expect((await answer(['plan.md', 'A', 'no,', 'spaces'], dir)).code).toBe(0)
    expect(readFileSync(file, 'utf8')).toContain('### A: Tabs?\n\n- **answer**: no, spaces\n\n## Execution State')
  })
})
