// Kill soak: run a shell plan, SIGKILL `mdplan run` (and its agents, as a crash would) at random
// moments, resume each time, and count what went wrong.
import {execFileSync, spawn} from 'node:child_process'
import {existsSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {fileSize, killAgents, leftoverTempFiles, random, readPlan, readRuns, row, sleep, soakPlan, soakProject} from './util.js'

// MDPLAN_BIN: soak another build (a checkout of a commit, say) with the same harness.
const bin = process.env.MDPLAN_BIN ?? fileURLToPath(new URL('../../bin/mdplan.js', import.meta.url))

/** Start `mdplan run`; resolves {code, signal, output} when it ends. */
export function startRun(plan, cwd, args = []) {
  const child = spawn(process.execPath, [bin, 'run', plan, '--quiet', ...args], {cwd, env: {...process.env, NO_COLOR: '1'}, stdio: ['ignore', 'pipe', 'pipe']})
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve({code, signal, output})))
  return {child, exited}
}

/**
 * @param {object} o
 * @param {number} o.agents
 * @param {number} o.kills
 * @param {number} [o.seed]
 * @param {number} [o.minMs] shortest agent sleep
 * @param {number} [o.maxMs] longest agent sleep
 * @param {number} [o.maxKillMs] a kill comes between 0 and this long after the run starts
 * @param {boolean} [o.crash] kill the agents with mdplan, as a crash of the machine or session would
 *   (default: SIGKILL mdplan alone; its agents run on and the next run must end them before relaunching)
 * @param {boolean} [o.keep] keep the temp folder
 * @param {'no'|'plain'|'commit'|'worktree'} [o.git] run in a fresh git repository ('plain'), with `commit: true`, or with
 *   `isolation: worktree` (agents then write a file they declare, and every one must end up committed or merged)
 */
export async function killSoak({agents, kills, seed = 1, minMs = 50, maxMs = 300, maxKillMs = 1000, concurrency = 8, crash = false, keep = false, git = 'no', log = () => {}}) {
  const dir = soakProject('mdplan-soak-kill-', git)
  const plan = join(dir, 'plan.md')
  const runsLog = join(dir, 'runs.log')
  const {text, ids} = soakPlan({agents, seed, minMs, maxMs, concurrency, git, runsLog})
  writeFileSync(plan, text)
  const rand = random(seed * 7919)

  const snapshots = []
  const parseFailures = []
  const unexpectedExits = []
  let killsDone = 0
  let finishedEarly = 0
  let completedLost = 0
  let previous = new Set()
  const started = Date.now()

  // Count only kills that hit a live run: a run that finished first is not a kill.
  for (let k = 0; killsDone < kills && k < kills * 3; k++) {
    const before = statSync(plan).ino
    const {child, exited} = startRun(plan, dir)
    let ended = false
    void exited.then(() => (ended = true))
    // Most kills land in the run proper (after its first write); some during its start-up.
    const early = rand() < 0.2
    const at = Math.floor(rand() * (early ? 600 : maxKillMs))
    if (!early) while (!ended && statSync(plan).ino === before) await sleep(5)
    const raced = await Promise.race([exited.then(() => 'exited'), sleep(at).then(() => 'timer')])
    if (raced === 'timer') {
      child.kill('SIGKILL')
      killsDone++
    }
    const result = await exited
    if (raced === 'exited') {
      // It finished (or refused) before its kill: only a clean finish is fine.
      if (result.code === 0) finishedEarly++
      else unexpectedExits.push(`run ${k + 1}: exit ${result.code}: ${result.output.trim().split('\n').slice(-3).join(' / ')}`)
    }
    if (crash) await killAgents(plan)
    const state = readPlan(plan, ids)
    if (!state.ok) parseFailures.push(`after run ${k + 1} (${early ? 'start-up, ' : ''}${at} ms): ${state.problems.slice(0, 3).join('; ')}`)
    const completed = new Set([...state.rows].filter(([, r]) => r.status === 'completed').map(([id]) => id))
    for (const id of previous) if (!completed.has(id)) completedLost++
    previous = completed
    snapshots.push({completed, offset: fileSize(runsLog)})
    log(`run ${k + 1}, kill ${killsDone}/${kills} ${early ? 'in start-up, ' : ''}${at} ms ${early ? 'after spawn' : 'after its first write'}: ${completed.size}/${ids.length} completed${state.ok ? '' : ' — PLAN BROKEN'}`)
    if (result.code === 0 && completed.size === ids.length) {
      // Done already: start over from a fresh table, so every kill lands in a live run.
      writeFileSync(plan, text)
      rmSync(runsLog, {force: true})
      previous = new Set()
      snapshots.length = 0
    }
  }

  const final = await startRun(plan, dir).exited
  await killAgents(plan)
  const state = readPlan(plan, ids)
  if (!state.ok) parseFailures.push(`after the final run: ${state.problems.slice(0, 3).join('; ')}`)
  const notCompleted = ids.filter((id) => state.rows.get(id)?.status !== 'completed')

  // A completed row on disk is a promise: that agent must never start again.
  const firstCompletedAt = new Map()
  for (const snapshot of snapshots) for (const id of snapshot.completed) if (!firstCompletedAt.has(id)) firstCompletedAt.set(id, snapshot.offset)
  const runs = readRuns(runsLog)
  const reran = new Set()
  for (const entry of runs) {
    const offset = firstCompletedAt.get(entry.id)
    if (entry.kind === 'start' && offset !== undefined && entry.offset >= offset) reran.add(entry.id)
  }
  // Two copies of one agent at once: a copy logged a step after a later copy of the same agent
  // started (a killed run's agent still working beside its relaunch). Granularity: one 50 ms step.
  const overlapped = new Set()
  const latest = new Map()
  for (const entry of runs) {
    if (entry.kind === 'start') latest.set(entry.id, entry.agentId)
    else if (latest.get(entry.id) !== entry.agentId) overlapped.add(entry.id)
  }
  const neverDone = ids.filter((id) => !runs.some((e) => e.kind === 'done' && e.id === id))
  const temps = leftoverTempFiles(dir)
  const lockLeft = existsSync(`${plan}.lock`)
  const gitProblems = git === 'no' ? [] : gitLeftovers(dir, git, ids)
  const seconds = (Date.now() - started) / 1000
  if (!keep) rmSync(dir, {recursive: true, force: true})

  const result = {
    agents: ids.length,
    kills: killsDone,
    finishedEarly,
    parseFailures,
    unexpectedExits,
    reran: [...reran],
    overlapped: [...overlapped],
    completedLost,
    finalExit: final.code,
    finalOutput: final.code === 0 ? '' : final.output,
    notCompleted,
    neverDone,
    leftoverTemps: temps,
    lockLeft,
    gitProblems,
    seconds,
    dir: keep ? dir : undefined
  }
  const survived = killsDone - parseFailures.length
  const where = git === 'no' ? '' : git === 'plain' ? ', in git' : `, in git, ${git === 'commit' ? 'commit: true' : 'worktrees'}`
  result.rows = [
    row(`kill soak (${ids.length} agents${where}): SIGKILLs of mdplan run${crash ? ' and its agents' : ''}, each resumed`, `${killsDone} kills, ${survived} survived (${finishedEarly} runs finished first; ${seconds.toFixed(0)} s)`, `all ${killsDone}`, survived === killsDone && unexpectedExits.length === 0),
    row(`kill soak${where}: times the plan failed to parse or validate after a kill`, parseFailures.length, '0', parseFailures.length === 0),
    row(`kill soak${where}: completed agents that ran again`, reran.size, '0', reran.size === 0),
    row(`kill soak${where}: completed rows that went back`, completedLost, '0', completedLost === 0),
    row(crash ? `kill soak${where}: agents running twice at once` : `kill soak${where}: agents relaunched while the killed run’s copy still ran`, overlapped.size, '0', overlapped.size === 0),
    ...(git === 'no' ? [] : [row(`kill soak${where}: agents' files missing, uncommitted or worktrees left`, gitProblems.length, '0', gitProblems.length === 0)]),
    row(`kill soak${where}: final state`, `exit ${final.code}, ${ids.length - notCompleted.length}/${ids.length} completed, temp files ${temps.length}, lock ${lockLeft ? 'left' : 'released'}`, `exit 0, all completed`, final.code === 0 && notCompleted.length === 0 && neverDone.length === 0 && temps.length === 0 && !lockLeft)
  ]
  return result
}

/** What git should hold once every agent completed: each agent's file, committed (commit, worktree), no worktree left. */
function gitLeftovers(dir, git, ids) {
  const problems = []
  const run = (...args) => execFileSync('git', args, {cwd: dir, encoding: 'utf8'})
  if (git !== 'plain') {
    for (const id of ids) if (!existsSync(join(dir, 'out', `${id}.txt`))) problems.push(`out/${id}.txt missing`)
    const dirty = run('status', '--porcelain', '--', 'out').trim()
    if (dirty) problems.push(`not committed: ${dirty.split('\n').slice(0, 5).join(', ')}`)
  }
  const worktrees = run('worktree', 'list', '--porcelain').split('\n').filter((line) => line.startsWith('worktree ')).length
  if (worktrees > 1) problems.push(`${worktrees - 1} worktrees left`)
  return problems
}
