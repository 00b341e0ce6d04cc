import {chmodSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {checkRunners, isInstalled} from '../../../src/runners/check-runners.js'
import {resolveRunner} from '../../../src/runners/resolve-runner.js'
import type {Runner} from '../../../src/runners/runner.js'
import {tempDir} from '../../helpers/runner-support.js'

const plan = (frontMatter: string, fieldsB = '') =>
  parsePlan(
    `${frontMatter}# Plan\n\n## Agents\n\n### A: one\n- **depends_on**: []\n- **prompt**: |\n    do A\n\n### B: two\n- **depends_on**: [A]\n${fieldsB}- **prompt**: |\n    do B\n`,
    '/plans/plan.md'
  )

describe('resolveRunner', () => {
  it('defaults to claude', () => {
    const p = plan('')
    expect(resolveRunner(p, p.agents[0]!).name).toBe('claude')
  })
  it('uses front matter, then the agent field, then the flag', () => {
    const p = plan('---\nrunner: codex\n---\n', '- **runner**: gemini\n')
    expect(resolveRunner(p, p.agents[0]!).name).toBe('codex')
    expect(resolveRunner(p, p.agents[1]!).name).toBe('gemini')
    expect(resolveRunner(p, p.agents[1]!, 'opencode').name).toBe('opencode')
    expect(resolveRunner(p, p.agents[0]!, 'shell').name).toBe('shell')
  })
  it('treats other names as command templates', () => {
    const p = plan('---\nrunner: "my-agent --task {prompt_file}"\n---\n', '- **runner**: `other {prompt}`\n')
    const a = resolveRunner(p, p.agents[0]!)
    expect(a.name).toBe('command')
    expect(a.executable).toBe('my-agent')
    expect(resolveRunner(p, p.agents[1]!).executable).toBe('other')
  })
})

describe('checkRunners', () => {
  it('names the agents, the runner, and what to install', async () => {
    const p = plan('---\nrunner: codex\n---\n')
    const runners = new Map<string, Runner>(p.agents.map((agent) => [agent.id, resolveRunner(p, agent)]))
    const messages = await checkRunners(p, runners, {PATH: tempDir()})
    expect(messages).toHaveLength(1)
    expect(messages[0]!.reason).toBe('agents A, B use the codex runner, but `codex` is not installed: npm install -g @openai/codex')
    expect(messages[0]!.rule).toBe('runner-not-installed')
    expect(messages[0]!.severity).toBe('error')
  })
  it('finds executables on PATH and honours the env overrides', async () => {
    const dir = tempDir()
    const fake = join(dir, 'codex')
    writeFileSync(fake, '#!/bin/sh\n')
    chmodSync(fake, 0o755)
    const p = plan('---\nrunner: codex\n---\n', '- **runner**: claude\n')
    const runners = new Map<string, Runner>(p.agents.map((agent) => [agent.id, resolveRunner(p, agent)]))
    const messages = await checkRunners(p, runners, {PATH: dir})
    expect(messages.map((m) => m.reason)).toEqual(['agent B uses the claude runner, but `claude` is not installed: npm install -g @anthropic-ai/claude-code'])
    expect(await checkRunners(p, runners, {PATH: dir, MDPLAN_CLAUDE_BIN: fake})).toEqual([])
    const missing = await checkRunners(p, runners, {PATH: dir, MDPLAN_CLAUDE_BIN: join(dir, 'nope')})
    expect(missing[0]!.reason).toContain('(from MDPLAN_CLAUDE_BIN)')
    expect(await isInstalled('sh')).toBe(true)
  })
  it("points at the line that chose the runner: the front matter's runner line, the agent's own field, the heading for --runner", async () => {
    const p = plan('---\ntitle: t\nrunner: codex\n---\n', '- **runner**: gemini\n')
    const runners = new Map<string, Runner>(p.agents.map((agent) => [agent.id, resolveRunner(p, agent)]))
    const messages = await checkRunners(p, runners, {PATH: tempDir()})
    const at = (m: (typeof messages)[number]) => (m.place && 'start' in m.place ? m.place.start : m.place)
    expect(messages.map((m) => [m.reason.split(' ')[1], at(m)?.line])).toEqual([
      ['A', 3],
      ['B', 16]
    ])
    const flagged = new Map<string, Runner>(p.agents.map((agent) => [agent.id, resolveRunner(p, agent, 'opencode')]))
    const fromFlag = await checkRunners(p, flagged, {PATH: tempDir()}, undefined, 'opencode')
    expect(at(fromFlag[0]!)?.line).toBe(p.agents[0]!.position.start.line)
  })
})
