// Fuzz figures: parse + validate mutated real plans and random text, count what goes wrong.
// (test/unit/plan/fuzz-parse.test.ts and test/e2e/run/fuzz-run.test.ts hold the same properties as tests; this counts them at a larger scale.)
import {existsSync, readdirSync, readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import fc from 'fast-check'
import {parsePlan} from '../../dist/plan/parse-plan.js'
import {validatePlan} from '../../dist/plan/validate-plan.js'
import {row} from './util.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const fileLevel = new Set(['no-agents-section', 'no-agents', 'empty-file'])

function realPlans() {
  const plans = []
  for (const group of ['parse', 'validate']) {
    const dir = join(root, 'fixtures', group)
    for (const name of readdirSync(dir)) {
      const file = join(dir, name, 'plan.md')
      if (existsSync(file) && statSync(file).isFile()) plans.push(readFileSync(file, 'utf8'))
    }
  }
  for (const name of readdirSync(join(root, 'plans'))) if (name.endsWith('.md')) plans.push(readFileSync(join(root, 'plans', name), 'utf8'))
  return plans
}

const specials = ['|', '\\', '`', '#', '\n', '-', '[', ']', '*', ':', '\r', '\u0000', '\uFFFD', ' ', '```', '## ', '### A: x\n', '| A | done |\n', '- **depends_on**: [Q]\n']

/** One random edit of a text, driven by fast-check. */
const edit = fc.tuple(fc.nat(), fc.nat(), fc.constantFrom('delete-line', 'duplicate-line', 'swap-lines', 'insert', 'truncate'), fc.oneof(fc.constantFrom(...specials), fc.string({maxLength: 8})))

function apply(text, [at, to, kind, insert]) {
  const lines = text.split('\n')
  const line = at % Math.max(1, lines.length)
  const offset = at % (text.length + 1)
  if (kind === 'delete-line') lines.splice(line, 1)
  else if (kind === 'duplicate-line') lines.splice(line, 0, lines[line] ?? '')
  else if (kind === 'swap-lines') {
    const other = to % lines.length
    ;[lines[line], lines[other]] = [lines[other], lines[line]]
  } else if (kind === 'insert') return text.slice(0, offset) + insert + text.slice(offset)
  else return text.slice(0, offset)
  return lines.join('\n')
}

/** Parse and validate; return what is wrong with the outcome (exception, unpositioned error), if anything. */
function judge(text) {
  let diagnostics
  try {
    const plan = parsePlan(text, 'fuzz.md')
    diagnostics = [...plan.messages, ...validatePlan(plan)]
  } catch (error) {
    return {exception: `${error?.name}: ${error?.message}`}
  }
  const bad = diagnostics.find((d) => d.severity === 'error' && !fileLevel.has(d.rule) && !d.place)
  if (bad) return {unpositioned: `${bad.rule}: ${bad.reason}`}
  const badRule = diagnostics.find((d) => !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(d.rule) || !d.reason?.trim())
  if (badRule) return {unpositioned: `malformed message ${JSON.stringify(badRule)}`}
  return {}
}

export function fuzz({runs = 5000, seed = 1} = {}) {
  const plans = realPlans()
  const exceptions = []
  const unpositioned = []
  let count = 0
  const started = Date.now()
  const record = (text) => {
    count++
    const outcome = judge(text)
    if (outcome.exception) exceptions.push(outcome.exception)
    if (outcome.unpositioned) unpositioned.push(outcome.unpositioned)
  }
  const mutated = fc.tuple(fc.constantFrom(...plans), fc.array(edit, {minLength: 1, maxLength: 6})).map(([text, edits]) => edits.reduce(apply, text))
  const random = fc.oneof(fc.string({maxLength: 400}), fc.string({unit: 'binary', maxLength: 400}), fc.uint8Array({maxLength: 400}).map((bytes) => Buffer.from(bytes).toString('utf8')))
  for (const text of fc.sample(mutated, {numRuns: runs, seed})) record(text)
  for (const text of fc.sample(random, {numRuns: Math.ceil(runs / 5), seed: seed + 1})) record(text)
  const seconds = (Date.now() - started) / 1000
  return {
    inputs: count,
    exceptions,
    unpositioned,
    seconds,
    rows: [
      row(`fuzz: mutated real plans and random text through parse + validate`, `${count} inputs (${runs} mutated from ${plans.length} real plans; ${seconds.toFixed(0)} s)`, 'reported', null),
      row('fuzz: uncaught exceptions', exceptions.length, '0', exceptions.length === 0),
      row('fuzz: errors without a position', unpositioned.length, '0', unpositioned.length === 0)
    ]
  }
}
