import {readFileSync} from 'node:fs'
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {validatePlan} from '../../../src/plan/validate-plan.js'
import {mutate, mutation} from '../../helpers/fuzz-plan.js'
import {runCli, setupPlan, shellPlan} from '../../helpers/run-cli.js'

const errorsOf = (text: string, file: string) => {
  const plan = parsePlan(text, file)
  return [...plan.messages, ...validatePlan(plan)].filter((d) => d.severity === 'error')
}

const base = shellPlan(
  {
    A: {script: 'echo a', estimate: '1m'},
    B: {deps: ['A'], script: 'echo b'},
    C: {deps: ['A'], soft: ['B'], script: 'echo c', creates: ['c.txt']},
    D: {deps: ['B', 'C'], script: 'echo d'}
  },
  {table: true}
)

describe('mdplan run on mutated plans', () => {
  // Each case is a real `mdplan run`; the agents run `true` (a command template, no shell),
  // so a mutation can change the plan's structure but never run anything of its own.
  it('either refuses with exit 2 and leaves the file as it was, or writes only plans that parse without errors', async () => {
    const outcomes = {refused: 0, ran: 0}
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, {minLength: 1, maxLength: 4}), async (edits) => {
        const text = mutate(base, edits)
        const {dir, plan} = await setupPlan({text})
        const result = await runCli(['run', plan, '--runner', 'true {prompt}', '--max-attempts', '1', '--agent-timeout', '10s'], {cwd: dir})
        const after = readFileSync(plan, 'utf8')
        if (result.exitCode === 2) {
          outcomes.refused++
          expect(after).toBe(text)
          // Refused for a reason it names: a positioned diagnostic, or one about the file as a whole
          // (a NUL byte makes it binary, say, which loading checks before parsing).
          expect(result.stderr).toMatch(/plan\.md(:\d+:\d+)?: .*\[[a-z0-9-]+\]/)
          if (!/\[(binary-file|invalid-utf8)\]/.test(result.stderr)) expect(errorsOf(text, plan).length, result.stderr).toBeGreaterThan(0)
          return
        }
        outcomes.ran++
        expect([0, 1], result.all).toContain(result.exitCode)
        expect(errorsOf(after, plan), after).toEqual([])
      }),
      {numRuns: Number(process.env.FUZZ_RUN_CASES ?? 6), seed: Number(process.env.FUZZ_SEED ?? 42)}
    )
    // With the default seed both paths are taken, so the property checks both.
    console.info(`fuzz-run: ${outcomes.ran} mutated plans ran, ${outcomes.refused} refused`)
    if (!process.env.FUZZ_SEED) expect(Math.min(outcomes.ran, outcomes.refused)).toBeGreaterThan(0)
  }, 120_000)
})
