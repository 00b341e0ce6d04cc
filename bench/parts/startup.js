// How soon `mdplan run` starts its first agent: every plan's makespan begins with
// it (issue 4). Also what bin/load-cli.js's V8 setting buys on the cold parse of a plan.
import {execFileSync, spawn} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {sleepDag, toPlan} from '../sleep-dag.js'
import {loadAverage} from '../load-average.js'

const bin = fileURLToPath(new URL('../../bin/mdplan.js', import.meta.url))
const loadPlan = new URL('../../dist/plan/load-plan.js', import.meta.url).href
const runs = Number(process.env.BENCH_STARTUP_RUNS ?? 9)

function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

/** Milliseconds from spawning `mdplan run` to its first `launched` event; the run is then stopped. */
function firstLaunch(dir) {
  return new Promise((resolve, reject) => {
    const started = Date.now()
    const child = spawn(process.execPath, [bin, 'run', 'plan.md', '--json'], {cwd: dir, stdio: ['ignore', 'pipe', 'ignore']})
    let buffer = ''
    let launchedAt
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk) => {
      buffer += chunk
      for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n')) {
        const event = JSON.parse(buffer.slice(0, newline))
        buffer = buffer.slice(newline + 1)
        if (event.type === 'launched' && launchedAt === undefined) {
          launchedAt = Date.parse(event.time)
          child.kill('SIGTERM')
        }
      }
    })
    child.on('error', reject)
    child.on('close', () => (launchedAt === undefined ? reject(new Error('mdplan run launched nothing')) : resolve(launchedAt - started)))
  })
}

/** A cold parse of `file` in a fresh Node, with extra V8 flags. */
function coldParse(file, flags) {
  const script = `const t = performance.now(); await (await import(${JSON.stringify(loadPlan)})).loadPlan(${JSON.stringify(file)}); console.log(performance.now() - t)`
  return Number(execFileSync(process.execPath, [...flags, '--input-type=module', '-e', script], {encoding: 'utf8'}))
}

export async function run() {
  const rows = []
  for (const agents of [200, 1000]) {
    const dir = mkdtempSync(join(tmpdir(), 'mdplan-startup-'))
    try {
      const nodes = sleepDag({agents, seed: 7, minMs: 1000, maxMs: 2000})
      const plan = toPlan(nodes, {concurrency: 16})
      const times = []
      const warm = []
      const parses = {tuned: [], plain: []}
      for (let i = 0; i < runs; i++) {
        writeFileSync(join(dir, 'plan.md'), plan)
        rmSync(join(dir, '.mdplan'), {recursive: true, force: true})
        times.push(await firstLaunch(dir))
        // Again, the plan as it was: its parse comes from the cache the first run left (a rerun of a
        // plan checked out again, or one a `status` or `validate` looked at first).
        writeFileSync(join(dir, 'plan.md'), plan)
        rmSync(join(dir, '.mdplan', 'logs'), {recursive: true, force: true})
        warm.push(await firstLaunch(dir))
        // Alternate which goes first, so neither always runs on a warmer machine.
        const order = i % 2 === 0 ? ['tuned', 'plain'] : ['plain', 'tuned']
        for (const kind of order) parses[kind].push(coldParse(join(dir, 'plan.md'), kind === 'tuned' ? ['--interrupt-budget=1000000'] : []))
      }
      const load = loadAverage()
      const target = agents === 1000 ? 400 : undefined
      const row = (what, ms) => ({
        figure: `first agent launched, ${agents} agents, ${what}`,
        value: `${ms} ms after mdplan run starts (${load})`,
        target: target === undefined ? null : `≤ ${target} ms`,
        holds: target === undefined ? null : ms <= target,
        issue: target === undefined ? undefined : 24
      })
      rows.push(row('plan parsed (a first run)', median(times)), row('parse from the cache', median(warm)))
      const tuned = median(parses.tuned)
      const plain = median(parses.plain)
      rows.push({
        figure: `cold parse, ${agents} agents (bin/load-cli.js's V8 setting)`,
        value: `${tuned.toFixed(0)} ms (V8's default: ${plain.toFixed(0)} ms, ${(tuned / plain).toFixed(2)}×)`,
        target: null,
        holds: null
      })
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  }
  return rows
}
