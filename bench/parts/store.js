// The cost of one state write after an event at 1000 agents (read-compare, splice,
// temp + fsync + rename), the bytes and lines it changes, and the same for the
// naive way (parse the whole document, edit the tree, stringify it, write it).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {unified} from 'unified'
import remarkParse from 'remark-parse'
import remarkGfm from 'remark-gfm'
import remarkFrontmatter from 'remark-frontmatter'
import remarkStringify from 'remark-stringify'
import {PlanStore} from '../../dist/store/plan-store.js'
import {atomicWrite} from '../../dist/store/atomic-write.js'
import {generatePlan, agentId} from '../generate-plan.js'
import {savesSoak} from '../soak/saves-soak.js'
import {loadAverage} from '../load-average.js'

const agents = 1000
const events = 600
const naiveEvents = 3
const merges = 60
/** How long each of the two runs (with and without saves) of the throughput figure lasts. */
const throughputMs = 12_000

function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
}

function now() {
  return Number(process.hrtime.bigint()) / 1e6
}

/** Bytes and lines that differ between two versions (lines compared in place when the count is unchanged). */
function changed(before, after) {
  let prefix = 0
  while (prefix < before.length && prefix < after.length && before[prefix] === after[prefix]) prefix++
  let suffix = 0
  while (suffix < before.length - prefix && suffix < after.length - prefix && before[before.length - 1 - suffix] === after[after.length - 1 - suffix]) suffix++
  const a = before.split('\n')
  const b = after.split('\n')
  let lines = 0
  if (a.length === b.length) for (let i = 0; i < a.length; i++) lines += a[i] === b[i] ? 0 : 1
  else lines = Math.max(a.length, b.length)
  // Bytes: the changed lines' bytes (what a diff shows), not the span between the first and last change.
  let bytes = 0
  if (a.length === b.length) for (let i = 0; i < a.length; i++) bytes += a[i] === b[i] ? 0 : Buffer.byteLength(b[i]) + 1
  else bytes = Math.max(before.length, after.length) - prefix - suffix
  return {bytes, lines}
}

/** The i-th event: agents launch in plan order, then complete with a duration. Rows are replaced, never changed in place, as the executor does. */
function apply(state, i) {
  const id = agentId(Math.floor(i / 2) % agents)
  const row = state.rows.get(id)
  if (i % 2 === 0) state.rows.set(id, {...row, status: 'in_progress', agentId: `agent-${i.toString(36)}`})
  else state.rows.set(id, {...row, status: 'completed', duration: `${1 + (i % 59)}s`, notes: i % 10 === 1 ? 'checkpoint: tests | lint' : row.notes})
  return id
}

/** A write as the executor makes it: the result is read, never changed (its own table is a copy of the map). */
async function write(store, state, running) {
  const result = (await store.write(state, {running, readOnly: true})).state
  return {rows: new Map(result.rows), meta: {...result.meta}}
}

export async function run() {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'mdplan-bench-store-'))
  const file = path.join(folder, 'plan.md')
  const text = generatePlan({agents, withState: true})
  fs.writeFileSync(file, text)
  const size = Buffer.byteLength(text)

  // The disk alone: write + fsync + rename of a file that size, one before each
  // store write, so that both see the same disk (its speed drifts with load).
  const data = Buffer.from(text)
  const disk = []
  for (let i = 0; i < 20; i++) atomicWrite(path.join(folder, 'bare.md'), data)

  const store = await PlanStore.open(file)
  let state = store.state
  const running = new Set()
  const ms = []
  const bytes = []
  const lines = []
  let before = fs.readFileSync(file, 'utf8')
  for (let i = 0; i < events; i++) {
    const id = apply(state, i)
    if (i % 2 === 0) running.add(id)
    else running.delete(id)
    data[data.length - 2] = 97 + (i % 26)
    const bare = now()
    atomicWrite(path.join(folder, 'bare.md'), data)
    if (i >= 2) disk.push(now() - bare)
    const start = now()
    state = await write(store, state, running)
    const elapsed = now() - start
    const after = fs.readFileSync(file, 'utf8')
    // The first write re-stamps Last updated and takes the plan's parse; count events after it.
    if (i >= 2) {
      ms.push(elapsed)
      const diff = changed(before, after)
      bytes.push(diff.bytes)
      lines.push(diff.lines)
    }
    before = after
  }

  // A hand edit (another process's save: temp file + rename, a Notes cell changed) before each of
  // `merges` events: the write that merges it. The save is a moment old when the write comes, as
  // a person's save is (a file written that instant waits a few ms to settle: in-place writers).
  const merge = []
  for (let i = 0; i < merges; i++) {
    const current = fs.readFileSync(file, 'utf8')
    const id = agentId(500 + i)
    const edited = current.replace(new RegExp(`^\\| ${id} \\|(.*)\\|[^|\\n]*\\|$`, 'm'), `| ${id} |$1| hand note ${i} |`)
    fs.writeFileSync(`${file}.swp`, edited)
    const past = new Date(Date.now() - 1000)
    fs.utimesSync(`${file}.swp`, past, past)
    fs.renameSync(`${file}.swp`, file)
    apply(state, events + i)
    const start = now()
    state = await write(store, state, running)
    merge.push(now() - start)
  }
  store.close()

  const writeLoad = loadAverage()
  // Throughput: a 1000-agent run for 12 s with one save a second (sed -i and an editor's temp + rename,
  // in turn), against the same run with none; then the whole run with those saves, to its end.
  const alone = await savesSoak({agents, everyMs: 1000, saver: 'none', durationMs: throughputMs, concurrency: 16, minMs: 10, maxMs: 30})
  const saved = await savesSoak({agents, everyMs: 1000, saver: 'both', durationMs: throughputMs, concurrency: 16, minMs: 10, maxMs: 30})
  const lost = 100 * (1 - saved.completed / Math.max(1, alone.completed))
  const savesLoad = loadAverage()
  const whole = await savesSoak({agents, everyMs: 1000, saver: 'both', concurrency: 16, minMs: 10, maxMs: 30})
  const wholeLoad = loadAverage()

  // Naive: parse the whole document, change the row in the tree, stringify, write atomically.
  const processor = unified().use(remarkParse).use(remarkFrontmatter, ['yaml']).use(remarkGfm).use(remarkStringify)
  const naiveFile = path.join(folder, 'naive.md')
  fs.writeFileSync(naiveFile, text)
  const naiveMs = []
  const naiveLines = []
  const naiveBytes = []
  let naiveBefore = text
  for (let i = 0; i < naiveEvents; i++) {
    const start = now()
    const source = fs.readFileSync(naiveFile, 'utf8')
    const tree = processor.parse(source)
    const table = tree.children.findLast((node) => node.type === 'table')
    const id = agentId(Math.floor(i / 2) % agents)
    const row = table.children.find((r) => r.children[0].children[0]?.value === id)
    row.children[1].children = [{type: 'text', value: i % 2 === 0 ? 'in_progress' : 'completed'}]
    const out = processor.stringify(tree)
    atomicWrite(naiveFile, Buffer.from(out))
    naiveMs.push(now() - start)
    const diff = changed(naiveBefore, out)
    naiveLines.push(diff.lines)
    naiveBytes.push(diff.bytes)
    naiveBefore = out
  }
  const firstNaive = changed(text, fs.readFileSync(naiveFile, 'utf8'))
  fs.rmSync(folder, {recursive: true, force: true})

  const diskMs = quantile(disk, 0.5)
  const median = quantile(ms, 0.5)
  const p99 = quantile(ms, 0.99)
  const maxLines = Math.max(...lines)
  return [
    {figure: `${agents} agents (${Math.round(size / 1024)} KB): bare write + fsync + rename (the disk), median / p99`, value: `${diskMs.toFixed(2)} / ${quantile(disk, 0.99).toFixed(2)} ms`, target: null, holds: null},
    {figure: `${agents} agents: one state write after an event, median (read-compare, splice, temp + fsync + rename)`, value: `${median.toFixed(2)} ms (${writeLoad})`, target: null, holds: null},
    {figure: `${agents} agents: one state write after an event, p99`, value: `${p99.toFixed(2)} ms (${writeLoad})`, target: '≤ 8 ms', holds: p99 <= 8, issue: 24},
    {figure: `${agents} agents: one state write / the bare disk write, medians`, value: `${(median / diskMs).toFixed(2)}× (${median.toFixed(2)} / ${diskMs.toFixed(2)} ms; ${writeLoad})`, target: '≤ 1.5×', holds: median / diskMs <= 1.5, issue: 24},
    {figure: `${agents} agents: lines changed per event (the row and Last updated), median / max`, value: `${quantile(lines, 0.5)} / ${maxLines}`, target: '≤ 2', holds: maxLines <= 2},
    {figure: `${agents} agents: bytes changed per event (changed lines), median / max`, value: `${quantile(bytes, 0.5)} / ${Math.max(...bytes)} B`, target: null, holds: null},
    {figure: `${agents} agents: write that merges a hand edit (another process's save), median`, value: `${quantile(merge, 0.5).toFixed(2)} ms`, target: '≤ 20 ms', holds: quantile(merge, 0.5) <= 20},
    {figure: `${agents} agents: write that merges a hand edit, p99`, value: `${quantile(merge, 0.99).toFixed(2)} ms`, target: null, holds: null},
    {
      figure: `${agents} agents: agents completed in ${throughputMs / 1000} s, no saves / a save every second, sed -i and an editor's temp + rename in turn (${saved.saves} saves)`,
      value: `${alone.completed} / ${saved.completed} (${lost.toFixed(1)} % lost; writes given up: ${saved.failedWrites.length}; ${savesLoad})`,
      target: '< 10 % lost, 0 given up',
      holds: lost < 10 && saved.failedWrites.length === 0,
      issue: 24
    },
    {
      figure: `${agents} agents: the whole run with a save every second (sed -i, editor temp + rename): writes given up / reruns no one asked for / saved lines lost`,
      value: `${whole.failedWrites.length} / ${whole.reruns.length} / ${whole.lost.length} (${whole.saves} saves, ${whole.completed}/${whole.agents} completed in ${whole.seconds.toFixed(1)} s, exit ${whole.exitCode}; ${wholeLoad})`,
      target: '0 / 0 / 0, all completed',
      holds: whole.failedWrites.length === 0 && whole.reruns.length === 0 && whole.lost.length === 0 && whole.completed === whole.agents && whole.exitCode === 0,
      issue: 24
    },
    {figure: `${agents} agents: naive parse + remark-stringify + write per event, median / p99`, value: `${quantile(naiveMs, 0.5).toFixed(1)} / ${quantile(naiveMs, 0.99).toFixed(1)} ms`, target: null, holds: null},
    {figure: `${agents} agents: naive, lines changed by its first write / per event after`, value: `${firstNaive.lines} (${firstNaive.bytes} B) / ${quantile(naiveLines, 0.5)} (${quantile(naiveBytes, 0.5)} B)`, target: null, holds: null}
  ]
}
