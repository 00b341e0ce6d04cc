// Concurrent editors: while a plan runs, another process saves random hand edits into it.
// At the end every edit must still be there, and every instruction (a re-queue) must have been followed.
import {spawn} from 'node:child_process'
import {existsSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {killAgents, leftoverTempFiles, readPlan, readRuns, row, sleep, soakPlan, soakProject} from './util.js'

// MDPLAN_BIN: soak another build (a checkout of a commit, say) with the same harness.
const bin = process.env.MDPLAN_BIN ?? fileURLToPath(new URL('../../bin/mdplan.js', import.meta.url))
const editor = fileURLToPath(new URL('./editor.js', import.meta.url))

/**
 * @param {object} o
 * @param {number} o.agents
 * @param {number} o.edits
 * @param {number} [o.gapMs] mean time between two saves
 * @param {'rename'|'in-place'|'mixed'|'stale'} [o.mode] how the editor saves (stale: rename, and every fifth save a buffer ten saves old)
 */
export async function editorSoak({agents, edits, mode = 'rename', careless = false, gapMs = 25, seed = 2, minMs = 50, maxMs = 300, concurrency = 8, timeoutMs = 600_000, keep = false, git = 'no', log = () => {}}) {
  const dir = soakProject('mdplan-soak-edit-', git)
  const plan = join(dir, 'plan.md')
  const runsLog = join(dir, 'runs.log')
  const record = join(dir, 'edits.ndjson')
  const {text, ids} = soakPlan({agents, seed, minMs, maxMs, concurrency, gate: true, git, runsLog, gateFile: join(dir, 'gate.open')})
  writeFileSync(plan, text)
  const started = Date.now()

  const run = spawn(process.execPath, [bin, 'run', plan, '--json'], {cwd: dir, env: {...process.env, NO_COLOR: '1'}, stdio: ['ignore', 'pipe', 'pipe']})
  let stdout = ''
  let stderr = ''
  run.stdout.on('data', (chunk) => (stdout += chunk))
  run.stderr.on('data', (chunk) => (stderr += chunk))
  const exited = new Promise((resolve) => run.on('close', (code) => resolve(code)))

  // Start editing once an agent has completed, so there are finished rows to edit.
  while (!/\| completed \|/.test(readFileSync(plan, 'utf8'))) await sleep(20)
  const person = spawn(process.execPath, [editor, plan, runsLog, String(edits), String(gapMs), String(seed), record, mode, careless ? 'careless' : 'careful'], {cwd: dir, stdio: ['ignore', 'inherit', 'inherit']})
  const editorCode = await new Promise((resolve) => person.on('close', resolve))
  log(`editor finished ${edits} saves after ${((Date.now() - started) / 1000).toFixed(1)} s`)
  // Every save landed while the run was going (GATE holds it open); now let it finish.
  writeFileSync(join(dir, 'gate.open'), '')
  let timer
  const code = await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)))])
  clearTimeout(timer)
  if (code === 'timeout') {
    run.kill('SIGKILL')
    await killAgents(plan)
  }

  writeFileSync(join(dir, 'events.ndjson'), stdout)
  const saved = readFileSync(record, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))
  const end = saved.find((e) => e.kind === 'end') ?? {reread: 0}
  const done = saved.filter((e) => e.kind !== 'end')
  const final = readPlan(plan, ids)
  const runs = readRuns(runsLog)
  const events = stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line))

  const lost = []
  const ignored = []
  const requeued = new Set()
  for (const edit of done) {
    if (edit.kind === 'context') {
      const count = final.text.split(edit.line).length - 1
      if (count !== 1) lost.push(`context line ${edit.n} found ${count} times`)
    } else if (edit.kind === 'note') {
      const notes = final.rows.get(edit.agent)?.notes ?? ''
      if (!notes.includes(edit.note)) lost.push(`note ${edit.n} on ${edit.agent}: Notes now ${JSON.stringify(notes)}`)
    } else if (edit.kind === 'requeue') {
      requeued.add(edit.agent)
      const again = runs.some((e) => e.kind === 'done' && e.id === edit.agent && e.offset >= edit.runsBefore)
      const status = final.rows.get(edit.agent)?.status
      if (!again || status !== 'completed') ignored.push(`re-queue ${edit.n} of ${edit.agent}: ${again ? 'ran again' : 'did not run again'}, now ${status}`)
    }
  }
  // Agents that ran twice without being re-queued: a stale save reverted mdplan's own write.
  const starts = new Map()
  for (const e of runs) if (e.kind === 'start') starts.set(e.id, (starts.get(e.id) ?? 0) + 1)
  const unasked = [...starts].filter(([id, n]) => n > 1 && !requeued.has(id)).map(([id, n]) => `${id} ×${n}`)
  // What mdplan saw as hand edits that no one made: the editor saved over a write it had not read.
  const intended = new Set(done.filter((e) => e.agent).map((e) => `${e.agent}\0${e.kind === 'note' ? 'Notes' : 'Status'}`))
  const phantom = events.filter((e) => e.type === 'human-edit' && e.agent !== '' && !intended.has(`${e.agent}\0${e.column}`)).map((e) => `${e.agent}.${e.column}=${JSON.stringify(e.value)}`)
  const notCompleted = ids.filter((id) => final.rows.get(id)?.status !== 'completed')
  const warnings = events.filter((e) => e.type === 'warning').map((e) => e.message)
  // A write mdplan gave up on stops launches until a later write succeeds.
  const failedWrites = warnings.filter((message) => message.startsWith('cannot write'))
  const temps = leftoverTempFiles(dir)
  const seconds = (Date.now() - started) / 1000
  const counts = {context: 0, note: 0, requeue: 0, stale: 0}
  for (const edit of done) counts[edit.kind]++
  if (!keep) rmSync(dir, {recursive: true, force: true})

  const result = {
    agents: ids.length,
    saves: done.length,
    counts,
    reread: end.reread,
    editorCode,
    exitCode: code,
    stderr: stderr.trim(),
    lost,
    ignored,
    unasked,
    phantom,
    warnings,
    failedWrites,
    notCompleted,
    parseOk: final.ok,
    problems: final.problems,
    leftoverTemps: temps,
    lockLeft: existsSync(`${plan}.lock`),
    seconds,
    dir: keep ? dir : undefined
  }
  result.rows = [
    row(`editors${git === 'no' ? '' : ` in git (${git})`}${mode === 'rename' ? '' : ` (${mode} saves)`}${careless ? ' (careless: no re-read before saving)' : ''}: hand saves while ${ids.length} agents ran`, `${done.length} saves (${counts.context} context, ${counts.note} notes, ${counts.requeue} re-queues${counts.stale ? `, ${counts.stale} stale buffers` : ''}; ${end.reread} re-read after a race; ${seconds.toFixed(0)} s)`, `${edits}`, done.length === edits && editorCode === 0),
    row('editors: edits lost', lost.length, '0', lost.length === 0),
    row('editors: re-queues not followed (ran again, completed)', ignored.length, '0', ignored.length === 0),
    row('editors: agents rerun that no one re-queued', unasked.length, '0', unasked.length === 0),
    row('editors: times mdplan could not write the plan (launches stopped meanwhile)', failedWrites.length, '0', failedWrites.length === 0),
    row('editors: cells mdplan took for hand edits that no one made (a save over a write it had not read)', phantom.length, careless ? 'reported' : '0', careless ? null : phantom.length === 0),
    row('editors: final state', `exit ${code}, ${ids.length - notCompleted.length}/${ids.length} completed, plan ${final.ok ? 'valid' : 'INVALID'}`, 'exit 0, all completed, valid', code === 0 && notCompleted.length === 0 && final.ok)
  ]
  return result
}
