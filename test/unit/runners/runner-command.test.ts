import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {commandRunner, fillTemplate} from '../../../src/runners/command/command.js'
import {splitTemplate} from '../../../src/runners/template-safety/split-template.js'
import {request, tempDir} from '../../helpers/runner-support.js'

const nasty = `Quote "a" 'b' $(touch pwned) \`touch pwned2\` $HOME\nline 2\n`

describe('splitTemplate', () => {
  it.each([
    ['my-agent --task {prompt_file}', ['my-agent', '--task', '{prompt_file}']],
    [`a 'b c' "d e" f\\ g`, ['a', 'b c', 'd e', 'f g']],
    [`x "say \\"hi\\" \\$HOME \\\\" 'no $(x) here'`, ['x', 'say "hi" $HOME \\', 'no $(x) here']],
    [`sh -c 'echo {prompt}'`, ['sh', '-c', 'echo {prompt}']],
    [`a"b"'c'd`, ['abcd']],
    ['  spaced   out  ', ['spaced', 'out']],
    [`empty '' ""`, ['empty', '', '']]
  ])('%s', (template, expected) => {
    expect(splitTemplate(template)).toEqual(expected)
  })

  it('rejects unterminated quotes', () => {
    expect(() => splitTemplate(`a 'b`)).toThrow(/unterminated/)
  })
})

describe('fillTemplate', () => {
  const values = {prompt: 'P', prompt_file: '/f', agent: 'A', agent_id: 'S', plan: '/p.md'}
  it('fills each placeholder inside its own argv element', () => {
    expect(fillTemplate(['x', '{prompt}', '--file={prompt_file}', '{agent}/{agent_id}', '{plan}', '{other}'], values)).toEqual([
      'x', 'P', '--file=/f', 'A/S', '/p.md', '{other}'
    ])
  })
  it('turns placeholders in a shell script into quoted variables', () => {
    expect(fillTemplate(['sh', '-c', 'agent {prompt} > {agent}.out', 'sh', '{prompt}'], values)).toEqual([
      'sh', '-c', 'agent "${MDPLAN_PROMPT}" > "${MDPLAN_AGENT}".out', 'sh', 'P'
    ])
  })
})

describe('command runner', () => {
  it('passes {prompt} as one argv element, byte for byte, without a shell', async () => {
    const dir = tempDir()
    const runner = commandRunner('printf %s {prompt}')
    expect(runner.executable).toBe('printf')
    expect(runner.canResume).toBe(false)
    const ids: string[] = []
    const result = await runner.run(request(dir, {prompt: nasty, onAgentId: (id) => void ids.push(id)}))
    expect(result.ok).toBe(true)
    expect(result.finalText).toBe(nasty)
    expect(existsSync(join(dir, 'pwned'))).toBe(false)
    expect(ids).toEqual([result.agentId])
    expect(result.agentId).toMatch(/^cmd-[0-9a-f]{8}$/)
  })

  it('writes {prompt_file} beside the log', async () => {
    const dir = tempDir()
    const result = await commandRunner('cat {prompt_file}').run(request(dir, {prompt: nasty}))
    expect(result.finalText).toBe(nasty)
    expect(readFileSync(join(dir, 'logs', 'A-1.prompt.md'), 'utf8')).toBe(nasty)
  })

  it('runs a shell only when the template asks, with placeholders as variables', async () => {
    const dir = tempDir()
    const result = await commandRunner(`sh -c 'printf "%s|%s|%s" {prompt} {agent} {plan}'`).run(request(dir, {prompt: nasty}))
    expect(result.ok).toBe(true)
    expect(result.finalText).toBe(`${nasty}|A|${dir}/plan.md`)
    expect(existsSync(join(dir, 'pwned'))).toBe(false)
  })

  it('resumes when the template uses {agent_id}, and learns an ID the command prints', async () => {
    const dir = tempDir()
    const script = join(dir, 'agent.sh')
    writeFileSync(script, 'echo "mdplan-agent-id: sess-42"\necho "resumed=[$1]"\n')
    // The plan names its script as a program that takes the placeholders as data.
    const runner = commandRunner(`sh ${script} {agent_id}`, {dataPrograms: [script]})
    expect(runner.canResume).toBe(true)
    const ids: string[] = []
    const fresh = await runner.run(request(dir, {onAgentId: (id) => void ids.push(id)}))
    expect(fresh.agentId).toBe('sess-42')
    expect(ids).toHaveLength(2)
    expect(ids[1]).toBe('sess-42')
    expect(fresh.finalText).toContain('resumed=[]')
    const resumed = await runner.run(request(dir, {resume: {sessionId: 'sess-42'}}))
    expect(resumed.finalText).toContain('resumed=[sess-42]')
  })

  it('fails with the exit code and last stderr line', async () => {
    const dir = tempDir()
    const result = await commandRunner(`sh -c 'echo nope >&2; exit 7'`).run(request(dir))
    expect(result.ok).toBe(false)
    expect(result.reason).toBe('exit 7: nope')
  })
})
