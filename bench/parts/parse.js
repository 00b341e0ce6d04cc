// Parse + validate time of mdplan against the bare remark-parse + remark-gfm
// parse of the same generated plan, and peak memory at 1000 agents.
import {execFileSync} from 'node:child_process'
import {fileURLToPath} from 'node:url'
import {unified} from 'unified'
import remarkParse from 'remark-parse'
import remarkGfm from 'remark-gfm'
import {parsePlan} from '../../dist/plan/parse-plan.js'
import {validatePlan} from '../../dist/plan/validate-plan.js'
import {generatePlan} from '../generate-plan.js'

const sizes = [26, 200, 1000]
const bare = unified().use(remarkParse).use(remarkGfm).freeze()

function ours(text) {
  const plan = parsePlan(text, 'bench.md')
  return validatePlan(plan).length + plan.messages.length
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

function time(fn) {
  const start = process.hrtime.bigint()
  fn()
  return Number(process.hrtime.bigint() - start) / 1e6
}

export async function run() {
  const rows = []
  for (const agents of sizes) {
    const text = generatePlan({agents, withState: true})
    const problems = ours(text)
    if (problems !== 0) throw new Error(`the generated plan of ${agents} agents is not valid (${problems} problems)`)
    const runs = agents >= 1000 ? 5 : agents >= 200 ? 9 : 21
    // Warm up both paths, then interleave them so drift hits both alike.
    for (let i = 0; i < 3; i++) {
      bare.parse(text)
      ours(text)
    }
    const a = []
    const b = []
    for (let i = 0; i < runs; i++) {
      globalThis.gc?.()
      a.push(time(() => bare.parse(text)))
      globalThis.gc?.()
      b.push(time(() => ours(text)))
    }
    const bareMs = median(a)
    const oursMs = median(b)
    const ratio = oursMs / bareMs
    rows.push({figure: `${agents} agents (${Math.round(text.length / 1024)} KB): parse+validate / bare remark-parse+gfm`, value: `${oursMs.toFixed(1)} ms / ${bareMs.toFixed(1)} ms = ${ratio.toFixed(2)}`, target: '≤ 1.30', holds: ratio <= 1.3})
  }

  // Peak memory in a fresh process, so earlier sizes and the bare parses do not count.
  const output = execFileSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), 'memory'], {encoding: 'utf8'})
  const {peakMb, liveMb} = JSON.parse(output)
  rows.push({figure: '1000 agents: peak RSS of a fresh process that parses and validates', value: `${peakMb.toFixed(0)} MB`, target: '< 200 MB', holds: peakMb < 200})
  rows.push({figure: '1000 agents: heap still in use after parse+validate (after GC)', value: `${liveMb.toFixed(1)} MB`, target: null, holds: null})
  return rows
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'memory') {
  const text = generatePlan({agents: 1000, withState: true})
  const plan = parsePlan(text, 'bench.md')
  validatePlan(plan)
  const peakMb = process.resourceUsage().maxRSS / 1024
  globalThis.gc?.()
  const liveMb = process.memoryUsage().heapUsed / 1048576
  // Naming `plan` after the measure keeps it alive through it: the live heap includes the parsed plan.
  process.stdout.write(JSON.stringify({peakMb, liveMb, agents: plan.agents.length}))
}
