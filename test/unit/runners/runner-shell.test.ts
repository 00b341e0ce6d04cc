import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import {shellRunner} from '../../../src/runners/shell/shell.js'
import {request, tempDir} from '../../helpers/runner-support.js'

describe('shellRunner', () => {
  it('runs the prompt as a script with the plan env, reporting the ID before it runs', async () => {
    const dir = tempDir()
    const seen: string[] = []
    const result = await shellRunner.run(
      request(dir, {
        prompt: 'echo "$MDPLAN_PLAN|$MDPLAN_AGENT|$MDPLAN_ATTEMPT|$MDPLAN_AGENT_ID"; pwd; echo "RESULT: SUCCESS"',
        attempt: 2,
        onAgentId: (id) => {
          seen.push(id)
        }
      })
    )
    expect(result.ok).toBe(true)
    expect(seen).toEqual([result.agentId])
    expect(result.agentId).toMatch(/^sh-[0-9a-f]{8}$/)
    const [env, cwd] = result.finalText.split('\n')
    expect(env).toBe(`${dir}/plan.md|A|2|${result.agentId}`)
    expect(cwd).toBe(dir)
    expect(result.finalText).toContain('RESULT: SUCCESS')
    expect(readFileSync(`${dir}/logs/A-1.log`, 'utf8')).toContain('RESULT: SUCCESS')
    expect(shellRunner.canResume).toBe(false)
  })

  it('reads what the script says it spent from its last `USAGE:` line', async () => {
    const dir = tempDir()
    const result = await shellRunner.run(request(dir, {prompt: 'echo "USAGE: input=1200 output=300 usd=0.02"; echo "RESULT: SUCCESS"'}))
    expect(result.usage).toEqual({input: 1200, output: 300})
    expect(result.costUsd).toBe(0.02)
  })

  it('says each `USAGE:` line as it comes (what it has spent so far), so a budget can stop it while it runs', async () => {
    const dir = tempDir()
    const said: unknown[] = []
    const result = await shellRunner.run(
      request(dir, {prompt: 'echo "USAGE: tokens=100"; echo work; echo "USAGE: tokens=250 usd=0.5"; echo "RESULT: SUCCESS"', onSpend: (spent) => said.push(spent)})
    )
    expect(said).toEqual([{usage: {tokens: 100}}, {usage: {tokens: 250}, costUsd: 0.5}])
    expect(result.usage).toEqual({tokens: 250})
  })

  it('fails with the exit code and the last stderr line', async () => {
    const dir = tempDir()
    const result = await shellRunner.run(request(dir, {prompt: 'echo first >&2; echo "second line" >&2; exit 4'}))
    expect(result.ok).toBe(false)
    expect(result.exitCode).toBe(4)
    expect(result.reason).toBe('exit 4: second line')
  })

  it('says when it timed out', async () => {
    const dir = tempDir()
    const result = await shellRunner.run(request(dir, {prompt: 'sleep 20', timeoutMs: 200}))
    expect(result.ok).toBe(false)
    expect(result.timedOut).toBe(true)
    expect(result.reason).toBe('timed out after 200ms')
  })
})
