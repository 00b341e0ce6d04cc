import {mkdtemp, readFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {readTable, root, runCli, setupPlan} from '../../helpers/run-cli.js'

const plan = `---
runner: claude
---

# Parallel Plan: cache

## Agents

### A: cache
- **depends_on**: []
- **creates**: [\`src/cache.ts\`]
- **prompt**: |
    Add a cache. If the store is unclear, ask.

### B: use-cache
- **depends_on**: [A]
- **prompt**: |
    Use the cache.
`

describe('questions that bubble up', () => {
  it('records a question, takes an answer, and resumes the same session with it', async () => {
    const {dir, plan: file} = await setupPlan({text: plan})
    const state = await mkdtemp(join(tmpdir(), 'mdplan-fake-state-'))
    const argvLog = join(state, 'argv.jsonl')
    const env = {
      MDPLAN_CLAUDE_BIN: join(root, 'fixtures', 'agents', 'claude'),
      FAKE_SCENARIO: 'question',
      FAKE_SCENARIO_IF: 'Add a cache',
      FAKE_STATE_DIR: state,
      FAKE_ARGV_LOG: argvLog
    }

    const first = await runCli(['run', file], {cwd: dir, env})
    expect(first.exitCode, first.all).toBe(1)
    const asked = await readTable(file)
    expect(asked.rows.A!.status).toBe('needs_input')
    const sessionId = asked.rows.A!.agentId
    expect(sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    expect(asked.rows.A!.notes).toContain('question: Which store should the cache use?')
    expect(asked.rows.B).toMatchObject({status: 'pending', notes: 'blocked by: A (needs input)'})
    expect(asked.text).toMatch(/## Open Questions[\s\S]*### A: Which store should the cache use\?[\s\S]*step: 3 of 5[\s\S]*- \*\*answer\*\*:/)

    const answered = await runCli(['answer', file, 'A', '2'], {cwd: dir})
    expect(answered.exitCode, answered.all).toBe(0)
    expect(await readFile(file, 'utf8')).toMatch(/- \*\*answer\*\*: 2\r?\n/)
    expect(answered.stdout).toContain('Option 2: SQLite')

    const second = await runCli(['run', file], {cwd: dir, env})
    expect(second.exitCode, second.all).toBe(0)
    const done = await readTable(file)
    expect(done.rows.A).toMatchObject({status: 'completed', agentId: sessionId})
    // The fake reports claude 2.1.330's running session total: $0.0008, then $0.0016 after the resume.
    expect(asked.rows.A!.notes).toContain('cost: $0.0008')
    expect(done.rows.A!.notes).toContain('cost: $0.0016')
    expect(done.rows.B!.status).toBe('completed')

    const calls = (await readFile(argvLog, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as {argv: string[]})
    const resume = calls.find((call) => call.argv.includes('-r'))
    expect(resume, JSON.stringify(calls)).toBeDefined()
    expect(resume!.argv[resume!.argv.indexOf('-r') + 1]).toBe(sessionId)
    const followUp = resume!.argv.at(-1)!
    expect(resume!.argv.at(-2)).toBe('--')
    expect(followUp).toContain('SQLite')
    expect(followUp).toContain('step: 3 of 5')
  })
})
