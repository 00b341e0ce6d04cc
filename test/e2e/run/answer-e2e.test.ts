import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {Command} from 'commander'
import {beforeAll, describe, expect, it} from 'vitest'
import {registerAnswer} from '../../../src/cli/commands/answer.js'
import type {Io} from '../../../src/cli/io.js'
import {runPlan} from '../../../src/run/run-plan.js'
import {agentsDir, readArgvLog, tempDir} from '../../helpers/runner-support.js'

const plan = `# Plan

## Agents

### A: cache
- **depends_on**: []
- **prompt**: |
    Build the cache.

### B: uses cache
- **depends_on**: [A]
- **prompt**: |
    Use it.
`

beforeAll(() => {
  process.env.MDPLAN_CLAUDE_BIN = join(agentsDir, 'claude')
})

async function answer(args: string[], cwd: string): Promise<number> {
  let code = -1
  const io: Io = {stdout: () => {}, stderr: () => {}, isTTY: false, env: {}, cwd}
  const program = new Command('mdplan').exitOverride()
  registerAnswer(program, io, (c) => void (code = c))
  await program.parseAsync(['answer', ...args], {from: 'user'})
  return code
}

describe('a question across two runs', () => {
  it('needs_input + Open Questions, then mdplan answer, then the same session resumes with the answer', async () => {
    const dir = tempDir()
    const file = join(dir, 'plan.md')
    writeFileSync(file, plan)
    const env = {FAKE_SCENARIO: 'question', FAKE_SCENARIO_IF: 'cache', FAKE_ARGV_LOG: join(dir, 'argv.log'), FAKE_STATE_DIR: join(dir, 'state')}

    const first = await runPlan({file, cwd: dir, runnerOptions: {env}, pollMs: 50})
    expect(first.exitCode).toBe(1)
    const afterFirst = readFileSync(file, 'utf8')
    const [launch] = readArgvLog(join(dir, 'argv.log'))
    const sessionId = launch!.argv[5]!
    expect(afterFirst).toMatch(new RegExp(`\\| A \\| needs_input \\| ${sessionId} \\|`))
    expect(afterFirst).toContain('## Open Questions\n\n### A: Which store should the cache use?\n')
    expect(afterFirst).toContain('- **answer**:\n')

    expect(await answer(['plan.md', 'A', 'Option 2'], dir)).toBe(0)

    const second = await runPlan({file, cwd: dir, runnerOptions: {env}, pollMs: 50})
    const calls = readArgvLog(join(dir, 'argv.log'))
    const resumed = calls[1]!
    expect(resumed.argv.slice(4, 6)).toEqual(['-r', sessionId])
    const followUp = resumed.argv.at(-1)!
    expect(followUp).toContain('Answer: Option 2') // with `options` passed: 'Answer: Option 2: SQLite'
    expect(followUp).toContain('step: 3 of 5')
    expect(followUp).toContain("Resume the process with that state and the user's answer, and continue from where you left off.")
    expect(followUp).not.toContain('Build the cache.')
    const afterSecond = readFileSync(file, 'utf8')
    expect(afterSecond).toMatch(new RegExp(`\\| A \\| completed \\| ${sessionId} \\|`))
    expect(second.exitCode).toBe(0)
  })
})
