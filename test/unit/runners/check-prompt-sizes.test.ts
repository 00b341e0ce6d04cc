import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {checkPromptSizes as check} from '../../../src/runners/check-prompt-sizes.js'
import {resolveRunner} from '../../../src/runners/resolve-runner.js'
import {agentPrompt} from '../../../src/protocol/agent-prompt.js'
import {runnerMap} from '../../../src/nested/runner-map.js'
import type {Plan} from '../../../src/plan/types.js'

/** As `validate` calls it: each agent's runner resolved, its first prompt assembled. */
function checkPromptSizes(plan: Plan, flag?: string): ReturnType<typeof check> {
  return check(plan, {runnerOf: (agent) => resolveRunner(plan, agent, flag, runnerMap), promptOf: (runner, agent) => agentPrompt(runner, {plan, agent}).prompt}, flag)
}

function plan(runner: string, promptLines: number): string {
  const prompt = Array.from({length: promptLines}, (_, index) => `    Line ${index}: keep the contract; "$(quoted)" stays text.`).join('\n')
  return `---\nrunner: "${runner}"\n---\n\n# Parallel Plan: sizes\n\n## Agents\n\n### A: big\n- **depends_on**: []\n- **prompt**: |\n${prompt}\n\n### B: small\n- **depends_on**: []\n- **prompt**: |\n    Small.\n\n## Execution State\n\n| Agent | Status | Agent ID | Duration | Notes |\n|-------|--------|----------|----------|-------|\n| A | pending | — | — | |\n| B | pending | — | — | |\n`
}

describe('checkPromptSizes', () => {
  // About 300 KiB of prompt.
  const lines = 5600

  it.each(['claude', 'codex', 'gemini', 'opencode', 'my-agent --task {prompt_file}'])('is quiet for %s, which takes a large prompt', (runner) => {
    expect(checkPromptSizes(parsePlan(plan(runner, lines), '/p/plan.md'))).toEqual([])
  })

  it.each([
    ['my-agent --task {prompt}', 'use {prompt_file} instead'],
    ['shell', 'put it in a script file and run that']
  ])('warns at the prompt for %s', (runner, fix) => {
    const parsed = parsePlan(plan(runner, lines), '/p/plan.md')
    const warnings = checkPromptSizes(parsed)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchObject({severity: 'warning', rule: 'prompt-too-large', file: '/p/plan.md'})
    expect(warnings[0]!.reason).toMatch(/^agent A's prompt is \d+ KiB, over the 128 KiB Linux allows one argument/)
    expect(warnings[0]!.reason).toContain(fix)
    expect(warnings[0]!.place).toEqual(parsed.agents[0]!.prompt!.position)
  })

  it('is quiet below the limit, and the --runner flag decides when given', () => {
    expect(checkPromptSizes(parsePlan(plan('my-agent {prompt}', 100), '/p/plan.md'))).toEqual([])
    expect(checkPromptSizes(parsePlan(plan('my-agent {prompt}', lines), '/p/plan.md'), 'claude')).toEqual([])
  })
})
