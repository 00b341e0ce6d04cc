import {existsSync, readdirSync, readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {validatePlan} from '../../../src/plan/validate-plan.js'
import type {Diagnostic, Point, Span} from '../../../src/plan/types.js'
import {mutate, mutation, planLine} from '../../helpers/fuzz-plan.js'
import {root} from '../../helpers/run-cli.js'
import {sized} from '../../helpers/quick.js'

/** Every plan we have: the parse and validate fixtures and the example plans. */
function realPlans(): Array<{name: string; text: string}> {
  const plans: Array<{name: string; text: string}> = []
  for (const group of ['parse', 'validate']) {
    const dir = join(root, 'fixtures', group)
    for (const name of readdirSync(dir)) {
      const file = join(dir, name, 'plan.md')
      // Some validate fixtures are deliberately not files (a folder named plan.md).
      if (existsSync(file) && statSync(file).isFile()) plans.push({name: `${group}/${name}`, text: readFileSync(file, 'utf8')})
    }
  }
  for (const name of readdirSync(join(root, 'plans'))) if (name.endsWith('.md')) plans.push({name: `plans/${name}`, text: readFileSync(join(root, 'plans', name), 'utf8')})
  return plans
}

const plans = realPlans()

/** Errors about the file as a whole (something missing everywhere) have no single position. */
const fileLevel = new Set(['no-agents-section', 'no-agents', 'empty-file'])

function pointOf(place: Span | Point): Point {
  return 'start' in place ? place.start : place
}

/** Parse and validate must not throw, and every message must be one a person can act on. */
function check(text: string): Diagnostic[] {
  const plan = parsePlan(text, 'fuzz.md')
  const diagnostics = [...plan.messages, ...validatePlan(plan)]
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/).length
  for (const d of diagnostics) {
    expect(['error', 'warning', 'info']).toContain(d.severity)
    expect(d.rule).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/)
    expect(typeof d.reason).toBe('string')
    expect(d.reason.trim()).not.toBe('')
    expect(d.file).toBe('fuzz.md')
    if (d.severity === 'error' && !fileLevel.has(d.rule)) expect(d.place, `${d.rule}: ${d.reason}`).toBeDefined()
    if (d.place) {
      const point = pointOf(d.place)
      expect(point.line).toBeGreaterThanOrEqual(1)
      expect(point.line).toBeLessThanOrEqual(lines + 1)
      expect(point.column).toBeGreaterThanOrEqual(1)
    }
  }
  return diagnostics
}

const noise = fc.array(planLine, {maxLength: 4})
const agentId = fc.constantFrom('A', 'B', 'C', 'B2', 'api-client', 'a', 'Q')
const field = fc.oneof(
  planLine,
  fc.tuple(fc.constantFrom('depends_on', 'soft_depends_on', 'Depends on', 'creates', 'modifies', 'deletes', 'estimated_duration', 'description', 'prompt'), fc.array(fc.oneof(agentId, fc.string({maxLength: 12})), {maxLength: 3}), fc.boolean()).map(
    ([key, values, bracket]) => `- **${key}**: ${bracket ? `[${values.join(', ')}]` : values.join(', ')}`
  )
)
const agentBlock = fc.tuple(agentId, fc.string({maxLength: 10}), fc.array(field, {maxLength: 6}), fc.boolean(), noise).map(([id, name, fields, prompt, extra]) => [
  `### ${id}: ${name}`,
  ...fields,
  ...(prompt ? ['- **prompt**: |', '    Do it.', '    ```', '    # not a heading', '    ```'] : []),
  ...extra
])
const tableRow = fc.tuple(agentId, fc.constantFrom('pending', 'in_progress', 'completed', 'failed', 'needs_input', 'Completed', 'done', ''), fc.array(fc.string({maxLength: 10}), {maxLength: 4})).map(
  ([id, status, cells]) => `| ${id} | ${status} | ${cells.join(' | ')} |`
)
const stateSection = fc.tuple(fc.constantFrom('| Agent | Status | Agent ID | Duration | Notes |', '| Agent | Status | Notes |', '|Agent|Status|', '| Status | Agent |', '| Agent | Notes |'), fc.constantFrom('|---|---|---|---|---|', '|-------|--------|', '| --- | :---: |', 'not a delimiter'), fc.array(fc.oneof(tableRow, planLine), {maxLength: 6}), noise).map(([header, delimiter, rows, extra]) => [
  '## Execution State',
  '',
  header,
  delimiter,
  ...rows,
  '',
  'Started: —',
  ...extra
])
const document = fc
  .tuple(
    fc.boolean(),
    noise,
    fc.array(agentBlock, {maxLength: 5}),
    fc.array(fc.oneof(stateSection, noise.map((lines) => ['## Context', ...lines]), noise.map((lines) => ['## Pre-Execution Verification', '```sh', ...lines, '```'])), {maxLength: 3}),
    fc.constantFrom('\n', '\r\n'),
    fc.boolean()
  )
  .map(([front, head, agents, sections, eol, bom]) =>
    (bom ? '\uFEFF' : '') + [...(front ? ['---', 'runner: shell', '---'] : []), '# Parallel Plan: fuzz', ...head, '## Agents', ...agents.flat(), ...sections.flat()].join(eol)
  )

const runs = Number(process.env.FUZZ_RUNS ?? sized(200, 50))
// Fixed by default so a failure reproduces; FUZZ_SEED=<n> explores further.
const seed = Number(process.env.FUZZ_SEED ?? 8)

describe('fuzzing the parser and validator', () => {
  it('real plans parse as they are', () => {
    expect(plans.length).toBeGreaterThan(20)
    for (const plan of plans) check(plan.text)
  })

  it('mutated real plans: no exception, every message positioned', () => {
    fc.assert(
      fc.property(fc.constantFrom(...plans), fc.array(mutation, {minLength: 1, maxLength: 6}), (plan, edits) => {
        check(mutate(plan.text, edits))
      }),
      {numRuns: runs, seed}
    )
  })

  it('random plan-like Markdown: no exception, every message positioned', () => {
    let deep = 0
    fc.assert(
      fc.property(document, (text) => {
        check(text)
        const plan = parsePlan(text, 'fuzz.md')
        if (plan.agents.length > 0 && plan.state?.table) deep++
      }),
      {numRuns: runs, seed}
    )
    // The generator reaches agents and tables, not only the parser's front door.
    expect(deep).toBeGreaterThan(runs / 40)
  })

  it('arbitrary strings, binary-ish included: no exception', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({maxLength: 300}), fc.string({unit: 'binary', maxLength: 300}), fc.uint8Array({maxLength: 300}).map((bytes) => Buffer.from(bytes).toString('utf8'))), (text) => {
        check(text)
      }),
      {numRuns: Math.ceil(runs / 2), seed}
    )
  })
})
