import {rm} from 'node:fs/promises'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, root, runCli} from '../../helpers/run-cli.js'
import {readArgvLog, tempDir} from '../../helpers/runner-support.js'

beforeAll(isolateGitConfig)

const plan = `---
runner: claude
---

# Parallel Plan: relaunch

## Agents

### A: cache
- **prompt**: |
    Build the cache.
`

describe('an answered question whose session cannot be resumed', () => {
  it('is relaunched with the question, the answer and the resume state in its prompt, and the answer stays in the file', async () => {
    const dir = tempDir('mdplan-relaunch-')
    const argvLog = join(dir, 'argv.ndjson')
    const sessions = join(dir, 'sessions')
    const env = {
      GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!,
      GIT_CONFIG_NOSYSTEM: '1',
      MDPLAN_CLAUDE_BIN: join(root, 'fixtures', 'agents', 'claude'),
      FAKE_SCENARIO: 'question',
      FAKE_STATE_DIR: sessions,
      FAKE_ARGV_LOG: argvLog
    }
    const repo = await tempRepo()
    await repo.commit('plan', {'plan.md': plan})
    const file = join(repo.root, 'plan.md')
    expect((await runCli(['run', file], {cwd: repo.root, env})).exitCode).toBe(1)
    expect((await runCli(['answer', file, 'A', '2'], {cwd: repo.root, env})).exitCode).toBe(0)
    // The CLI no longer has the session (a cleared ~/.claude, another machine): `claude -r` fails.
    await rm(sessions, {recursive: true, force: true})
    const second = await runCli(['run', file], {cwd: repo.root, env})
    expect(second.exitCode, second.all).toBe(0)

    // Counted from the agent's side: the launch that asked, the resume that found no session, the relaunch.
    const calls = readArgvLog(argvLog)
    expect(calls).toHaveLength(3)
    expect(calls[1]!.argv).toContain('-r')
    const relaunch = calls[2]!
    expect(relaunch.argv).not.toContain('-r')
    const prompt = relaunch.argv.at(-1)!
    expect(prompt).toContain('Build the cache.')
    expect(prompt).toContain('Question: Which store should the cache use?')
    expect(prompt).toContain('Answer: Option 2: SQLite')
    expect(prompt).toContain('step: 3 of 5')
    const {rows, text} = await readTable(file)
    expect(rows.A!.status).toBe('completed')
    expect(rows.A!.agentId).toBe(relaunch.argv[relaunch.argv.indexOf('--session-id') + 1])
    // Never blanked: the person's answer is where they wrote it.
    expect(text).toContain('### A: Which store should the cache use?')
    expect(text).toMatch(/- \*\*answer\*\*: 2\n/)
    await repo.cleanup()
  }, 60_000)
})
