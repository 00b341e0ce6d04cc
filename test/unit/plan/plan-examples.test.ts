import {readdirSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {checkPlan} from '../../../src/plan/check-plan.js'
import {checkPlanTree} from '../../../src/nested/check-plan-tree.js'
import {loadPlan} from '../../../src/plan/load-plan.js'
import {parsePlan} from '../../../src/plan/parse-plan.js'

const root = fileURLToPath(new URL('../../..', import.meta.url))
const plans = readdirSync(new URL('../../../plans/', import.meta.url)).filter((name) => name.endsWith('.md') && !name.endsWith('.prompts.md'))

describe('example plans in plans/', () => {
  for (const name of plans) {
    it(`${name} is valid, every agent has a prompt and a row`, async () => {
      const plan = await loadPlan(`plans/${name}`, {cwd: root})
      expect(checkPlan(plan)).toEqual([])
      expect(plan.agents.length).toBeGreaterThanOrEqual(3)
      // Every agent has a prompt, or runs a child plan (`plan:`), which must be valid too.
      for (const agent of plan.agents) expect(agent.prompt?.text.trim() || agent.fields.plan?.value.trim()).toBeTruthy()
      expect(await checkPlanTree(plan, `plans/${name}`, root)).toEqual([])
    })
  }

  it('the demo runs on the shell runner, with a real DAG and commands that run', async () => {
    const plan = await loadPlan('plans/demo.md', {cwd: root})
    expect(plan.settings.runner).toBe('shell')
    expect(plan.agents.some((agent) => agent.softDependsOn.length > 0)).toBe(true)
    expect(plan.agents.every((agent) => agent.estimatedMs !== undefined)).toBe(true)
    expect(plan.preVerification).toHaveLength(1)
    expect(plan.integrationTests).toHaveLength(1)
    expect(plan.state?.table?.rows.every((row) => row.status === 'pending')).toBe(true)
  })

  it('the two-file example takes its prompts from the prompts file', async () => {
    const plan = await loadPlan('plans/claude-two-file.md', {cwd: root})
    expect(plan.agents.map((agent) => agent.prompt?.source)).toEqual(['prompts-file', 'prompts-file', 'prompts-file'])
    expect(plan.agents[0]!.prompt!.text).toMatch(/^Create `src\/lib\/rate-limit.ts`/)
  })

  it('bench/generate-plan.js makes valid plans, shell-runnable when asked', async () => {
    // Plain JS without types: imported through a URL so TypeScript does not need a declaration.
    const url: string = new URL('../../../bench/generate-plan.js', import.meta.url).href
    const {generatePlan} = (await import(url)) as {generatePlan: (options: Record<string, unknown>) => string}
    for (const options of [{agents: 26}, {agents: 200, shell: true, sleepMs: 100}, {agents: 30, withState: false}]) {
      const plan = parsePlan(generatePlan(options), 'generated.md')
      expect(checkPlan(plan).filter((d) => d.severity !== 'info')).toEqual([])
      expect(plan.agents).toHaveLength(options.agents)
      expect(plan.state === undefined).toBe(options.withState === false)
      if (options.shell) {
        expect(plan.settings.runner).toBe('shell')
        expect(plan.agents[0]!.prompt!.text).toMatch(/^set -e\nmkdir -p \.mdplan\/bench-out\nsleep 0\.100\n/)
      }
    }
  })
})
