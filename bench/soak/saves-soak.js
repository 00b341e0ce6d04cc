// Saves while a plan runs, the way people and tools make them: `sed -i` on a timer, an editor
// saving a stale buffer (loaded many writes ago, only the title changed), vim driven through tmux.
// A run must never give up writing, rerun an agent no one re-queued, or lose the saved edits.
import {spawn, spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {killAgents, readPlan, readRuns, row, sleep, soakPlan} from './util.js'

const bin = process.env.MDPLAN_BIN ?? fileURLToPath(new URL('../../bin/mdplan.js', import.meta.url))

/** Whether tmux and vim are installed (CI machines are fresh: the vim part is skipped without them). */
export function haveVim() {
  return ['tmux', 'vim'].every((tool) => spawnSync(tool, ['-V'], {stdio: 'ignore'}).error === undefined && spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0)
}

/** The savers: each makes one save of `plan`, numbered `n`; `context` lines must survive the run. */
const savers = {
  // sed -i: a temp file renamed over the plan (GNU sed), from the file as it is now.
  sed: async (plan, n) => {
    spawnSync('sed', ['-i', `s/^A soak plan.*$/& sed ${n}./`, plan])
    return `sed ${n}.`
  },
  // An editor buffer loaded long ago, saved with a new title: temp file + rename.
  stale: async (plan, n, state) => {
    state.buffer ??= readFileSync(plan, 'utf8')
    if (n % 50 === 0) state.buffer = readFileSync(plan, 'utf8')
    const text = state.buffer.replace(/^# .*$/m, `# Parallel Plan: title of save ${n}`)
    writeFileSync(`${plan}.swp`, text)
    renameSync(`${plan}.swp`, plan)
    return undefined
  },
  // Every other second sed -i, and between them an editor's save (temp file + rename) of the file as it
  // is now with a line added: both kinds of outside writer for the whole run, and each save must survive.
  both: async (plan, n, state) => {
    if (n % 2 === 1) return savers.sed(plan, n, state)
    const line = `- editor line ${n}`
    const text = readFileSync(plan, 'utf8').replace(/^## Agents$/m, `${line}\n\n## Agents`)
    writeFileSync(`${plan}.swp`, text)
    renameSync(`${plan}.swp`, plan)
    return line
  },
  // vim in a tmux pane: reload, add a Context line, write (`:w!`: even over a write it has not read).
  vim: async (plan, n, state) => {
    const send = (...keys) => spawnSync('tmux', ['send-keys', '-t', state.session, ...keys])
    if (!state.session) {
      state.session = `mdplan-soak-${process.pid}`
      spawnSync('tmux', ['new-session', '-d', '-s', state.session, '-x', '200', '-y', '50', `vim -n -u NONE -i NONE ${plan}`])
      await sleep(300)
    }
    const line = `- vim line ${n}`
    send('Escape', ':e!', 'Enter')
    send(`:/^## Agents/-1put ='${line}'`, 'Enter')
    send(':w!', 'Enter')
    // Wait for the save to land: vim starts and reads keys at its own pace (a save made after the run is no test).
    for (let waited = 0; waited < 3000; waited += 20) {
      if (readFileSync(plan, 'utf8').includes(line)) return line
      await sleep(20)
    }
    return undefined
  }
}

/**
 * Run a soak plan of `agents` agents while `saver` saves every `everyMs`, until the run ends
 * (or `durationMs` passes: then the run is stopped and what it completed is counted).
 */
export async function savesSoak({agents, everyMs, saver = 'sed', durationMs, concurrency = 16, minMs = 20, maxMs = 80, seed = 5, keep = false, log = () => {}}) {
  const dir = mkdtempSync(join(tmpdir(), `mdplan-soak-saves-${saver}-`))
  const plan = join(dir, 'plan.md')
  const {text, ids} = soakPlan({agents, seed, minMs, maxMs, concurrency})
  writeFileSync(plan, text)
  const started = Date.now()
  const run = spawn(process.execPath, [bin, 'run', plan, '--json'], {cwd: dir, env: {...process.env, NO_COLOR: '1'}, stdio: ['ignore', 'pipe', 'pipe']})
  let stdout = ''
  run.stdout.on('data', (chunk) => (stdout += chunk))
  run.stderr.on('data', () => {})
  let exited = false
  const exit = new Promise((resolve) => run.on('close', (code) => ((exited = true), resolve(code))))

  const state = {}
  const expected = []
  let saves = 0
  if (saver !== 'none') {
    while (!exited && !/\| completed \|/.test(readFileSync(plan, 'utf8'))) await sleep(20)
    while (!exited && (durationMs === undefined || Date.now() - started < durationMs)) {
      const line = await savers[saver](plan, ++saves, state)
      if (line) expected.push(line)
      await sleep(everyMs)
    }
  }
  if (durationMs !== undefined && !exited) {
    await sleep(Math.max(0, durationMs - (Date.now() - started)))
    run.kill('SIGTERM')
  }
  // Unref'd: once the run has exited, this guard must not keep the bench waiting for ten minutes.
  const code = await Promise.race([exit, new Promise((resolve) => setTimeout(() => resolve('timeout'), 600_000).unref())])
  if (code === 'timeout') run.kill('SIGKILL')
  await killAgents(plan)
  if (state.session) spawnSync('tmux', ['kill-session', '-t', state.session])
  const seconds = (Date.now() - started) / 1000

  const final = readPlan(plan, ids)
  const completed = ids.filter((id) => final.rows.get(id)?.status === 'completed').length
  const events = stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l))
  const failedWrites = events.filter((e) => e.type === 'warning' && e.message.startsWith('cannot write'))
  const starts = new Map()
  for (const e of readRuns(join(dir, 'runs.log'))) if (e.kind === 'start') starts.set(e.id, (starts.get(e.id) ?? 0) + 1)
  const reruns = [...starts].filter(([, n]) => n > 1).map(([id, n]) => `${id} ×${n}`)
  const lost = expected.filter((line) => !final.text.includes(line))
  if (!keep) rmSync(dir, {recursive: true, force: true})
  log(`${saver}: ${saves} saves, ${completed}/${ids.length} completed in ${seconds.toFixed(1)} s, exit ${code}`)
  return {agents: ids.length, saves, completed, seconds, exitCode: code, failedWrites: failedWrites.map((e) => e.message), reruns, lost, parseOk: final.ok, problems: final.problems}
}

/** The soak part: sed every 0.1 s on 100 agents, stale buffers, vim through tmux, one save a second on 1000 agents. */
export async function savesSoakPart({log = () => {}, big = 1000} = {}) {
  const rows = []
  const check = (name, r, complete = true) => {
    rows.push(row(`saves (${name}): run result`, `${r.saves} saves; ${r.completed}/${r.agents} completed in ${r.seconds.toFixed(0)} s, exit ${r.exitCode}`, complete ? 'exit 0, all completed' : 'runs to the end', complete ? r.exitCode === 0 && r.completed === r.agents : r.completed > 0))
    rows.push(row(`saves (${name}): writes mdplan gave up / agents rerun that no one re-queued / saved lines lost`, `${r.failedWrites.length} / ${r.reruns.length} / ${r.lost.length}`, '0 / 0 / 0', r.failedWrites.length === 0 && r.reruns.length === 0 && r.lost.length === 0 && r.parseOk))
  }
  check('sed -i every 0.1 s, 100 agents', await savesSoak({agents: 100, everyMs: 100, saver: 'sed', log}))
  check('stale buffer with a new title every 0.1 s, 100 agents', await savesSoak({agents: 100, everyMs: 100, saver: 'stale', log}))
  if (haveVim()) check('vim through tmux every 0.3 s, 100 agents', await savesSoak({agents: 100, everyMs: 300, saver: 'vim', minMs: 100, maxMs: 400, concurrency: 8, log}))
  else rows.push(row('saves (vim through tmux): skipped, tmux or vim is not installed', '—', null, null))
  check(`sed -i every second, ${big} agents`, await savesSoak({agents: big, everyMs: 1000, saver: 'sed', log}))
  return {rows}
}
