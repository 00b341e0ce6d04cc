// `mdplan status` is what people and scripts poll: a 1000-agent plan read from the parse cache
// (and, for comparison, parsed afresh), and a 10-agent plan against a bare `node -e 0` (issue 24).
import {execFileSync} from 'node:child_process'
import {mkdtempSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {sleepDag, toPlan} from '../sleep-dag.js'
import {median} from '../median.js'
import {loadAverage} from '../load-average.js'

const bin = fileURLToPath(new URL('../../bin/mdplan.js', import.meta.url))
const runs = Number(process.env.BENCH_STATUS_RUNS ?? 9)

function time(args, cwd, env = {}) {
  const start = process.hrtime.bigint()
  execFileSync(process.execPath, args, {cwd, env: {...process.env, NO_COLOR: '1', ...env}, stdio: 'ignore'})
  return Number(process.hrtime.bigint() - start) / 1e6
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'mdplan-status-'))
  try {
    writeFileSync(join(dir, 'big.md'), toPlan(sleepDag({agents: 1000, seed: 7, minMs: 20, maxMs: 200}), {concurrency: 16}))
    writeFileSync(join(dir, 'small.md'), toPlan(sleepDag({agents: 10, seed: 7}), {concurrency: 4}))
    const size = Math.round(statSync(join(dir, 'big.md')).size / 1024)
    const times = {cached: [], parsed: [], small: [], whole: [], node: []}
    // The first status of the big plan fills the cache; the ones measured read it.
    time([bin, 'status', 'big.md'], dir)
    for (let i = 0; i < runs; i++) {
      // Interleaved, so each pair sees the same machine.
      times.node.push(time(['-e', '0'], dir))
      times.small.push(time([bin, 'status', 'small.md'], dir))
      // The same command from the whole CLI's bundle, not the read-only one (bin/start.js).
      times.whole.push(time([bin, 'status', 'small.md'], dir, {MDPLAN_READ_BUNDLE: '0'}))
      times.cached.push(time([bin, 'status', 'big.md'], dir))
      if (i < 3) times.parsed.push(time([bin, 'status', 'big.md'], dir, {MDPLAN_PARSE_CACHE: '0'}))
    }
    const load = loadAverage()
    const cached = median(times.cached)
    const ratio = median(times.small) / median(times.node)
    return [
      {figure: `mdplan status of a 1000-agent plan (${size} KB, short prompts), parse cached`, value: `${(cached / 1000).toFixed(3)} s (parsed afresh: ${(median(times.parsed) / 1000).toFixed(3)} s; ${load})`, target: '≤ 0.25 s', holds: cached <= 250, issue: 24},
      {figure: 'mdplan status of a 10-agent plan ÷ node -e 0', value: `${ratio.toFixed(2)}× (${median(times.small).toFixed(0)} / ${median(times.node).toFixed(0)} ms; from the whole CLI's bundle: ${(median(times.whole) / median(times.node)).toFixed(2)}×, ${median(times.whole).toFixed(0)} ms; ${load})`, target: '≤ 1.5×', holds: ratio <= 1.5, issue: 24}
    ]
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}
