import {chmodSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {authCheck} from '../../../src/hosts/remote-auth.js'
import {drawnAgentId} from '../../../src/runners/agent-id.js'
import {builtinRunners} from '../../../src/runners/builtin-runners.js'
import {resolveRunner} from '../../../src/runners/resolve-runner.js'
import {scriptResult} from '../../../src/runners/run-result.js'
import type {Runner} from '../../../src/runners/runner.js'
import {spawnRequest} from '../../../src/runners/spawn-request.js'
import {request, tempDir} from '../../helpers/runner-support.js'

/**
 * "A new runner is one folder plus one map entry": a throwaway runner, written as its folder would hold it
 * (a Runner object over the shared helpers: the Agent ID preamble, the spawn, the result assembly), added to a
 * copy of the map, resolved by name and run with a fake executable. Its login check on a host is its own too.
 */
function echoRunner(executable: string): Runner {
  const runner: Runner = {
    name: 'echo-agent',
    executable,
    install: 'a test fake: nothing to install',
    canResume: false,
    newAgentId: () => 'echo-1',
    remoteAuth: ({executable: file, host}) => ({words: ['cli', file, 'whoami', '-'], verdict: () => undefined, slow: () => `echo-agent did not answer on ${host}`}),
    run: async (attempt) => {
      const agentId = await drawnAgentId(attempt, runner)
      const started = Date.now()
      const result = await spawnRequest(attempt, {file: executable, args: ['--task', attempt.prompt], onLine: attempt.onOutput})
      return scriptResult(result, {agentId, file: executable, timeoutMs: attempt.timeoutMs, started})
    }
  }
  return runner
}

const plan = parsePlan(
  '---\nrunner: echo-agent\n---\n# Plan\n\n## Agents\n\n### A: one\n- **depends_on**: []\n- **prompt**: |\n    do A\n',
  '/plans/plan.md'
)

function fakeExecutable(): {dir: string; file: string} {
  const dir = tempDir()
  const file = join(dir, 'echo-agent')
  writeFileSync(file, '#!/bin/sh\n[ "$2" = fail ] && { echo "boom" >&2; exit 3; }\nprintf "working on: %s\\nRESULT: SUCCESS\\n" "$2"\n')
  chmodSync(file, 0o755)
  return {dir, file}
}

describe('a runner added through the map', () => {
  it('is resolved by name from the map it is in, and is a command template elsewhere', () => {
    const {file} = fakeExecutable()
    const runner = echoRunner(file)
    const runners = new Map([...builtinRunners, ['echo-agent', runner]])
    expect(resolveRunner(plan, plan.agents[0]!, undefined, runners)).toBe(runner)
    expect(resolveRunner(plan, plan.agents[0]!).name).toBe('command')
  })

  it('runs an agent: the ID reported before spawning, the output logged and streamed, the result read', async () => {
    const {dir, file} = fakeExecutable()
    const runners = new Map([...builtinRunners, ['echo-agent', echoRunner(file)]])
    const runner = resolveRunner(plan, plan.agents[0]!, undefined, runners)
    const ids: string[] = []
    const lines: string[] = []
    const result = await runner.run(request(dir, {agent: plan.agents[0]!, prompt: 'do A', onAgentId: (id) => void ids.push(id), onOutput: (line) => lines.push(line)}))
    expect(result).toMatchObject({ok: true, agentId: 'echo-1', finalText: 'working on: do A\nRESULT: SUCCESS\n', exitCode: 0, timedOut: false, interrupted: false, spawnFailed: false})
    expect(result.reason).toBeUndefined()
    expect(ids).toEqual(['echo-1'])
    expect(lines).toEqual(['working on: do A', 'RESULT: SUCCESS'])
    expect(readFileSync(join(dir, 'logs', 'A-1.log'), 'utf8')).toContain('RESULT: SUCCESS')

    const failed = await runner.run(request(dir, {agent: plan.agents[0]!, prompt: 'fail', agentId: 'echo-7'}))
    expect(failed).toMatchObject({ok: false, agentId: 'echo-7', exitCode: 3, reason: 'exit 3: boom'})
  })

  it('answers for its own login on a host', () => {
    const runner = echoRunner('/opt/echo-agent')
    expect(authCheck(runner, '/opt/echo-agent', {}, 'dev@build1', {prefix: '', texts: new Map()})?.words).toEqual(['cli', '/opt/echo-agent', 'whoami', '-'])
  })
})
