// Shared by the soak parts: the soak plan, reading the table the way mdplan does, the runs log, orphan agents.
import {existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {parsePlan} from '../../dist/plan/parse-plan.js'
import {validatePlan} from '../../dist/plan/validate-plan.js'
import {agentId} from '../generate-plan.js'
import {gitInit} from '../git-init.js'
import {random} from '../random.js'

export {agentId, random}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Where a soak runs: `git` 'no' (a plain folder), 'plain', 'commit' or 'worktree' (a fresh repository with one commit). */
export function soakProject(prefix, git = 'no') {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}${git === 'no' ? '' : `git-${git}-`}`))
  if (git === 'no') return dir
  writeFileSync(join(dir, 'README.md'), '# soak\n')
  // The soak's own files are not the agents' work: keep them out of scope checks and commits.
  writeFileSync(join(dir, '.gitignore'), 'runs.log\ngate.open\n*.log\n')
  gitInit(dir)
  return dir
}

/** Front matter for a git mode: `commit: true` or `isolation: worktree`. */
function gitFront(git) {
  return git === 'commit' ? ['commit: true'] : git === 'worktree' ? ['isolation: worktree'] : []
}

/**
 * A shell plan whose agents leave an exact trace: each appends `start <ID> <agent id>`
 * to runs.log when it starts, `tick …` every 50 ms of its work, and `done <ID> <agent id>`
 * as its LAST action before exit 0.
 * A DAG: each agent depends on up to two of the eight agents before it.
 * `gate`: one more agent, `GATE`, that runs until the file `gate.open` exists (keeps a run alive).
 * `git` ('commit', 'worktree'): each agent also writes `out/<ID>.txt`, which it declares, for mdplan to commit or merge;
 * `runsLog` is then an absolute path (a worktree agent runs in its own folder).
 */
export function soakPlan({agents, seed = 1, minMs = 50, maxMs = 300, concurrency = 8, gate = false, git = 'no', runsLog = 'runs.log', gateFile = 'gate.open'}) {
  const rand = random(seed)
  const ids = Array.from({length: agents}, (_, i) => agentId(i))
  const out = ['---', 'runner: shell', `concurrency: ${concurrency}`, ...gitFront(git), '---', '', `# Parallel Plan: soak of ${agents} agents`, '']
  const files = git === 'commit' || git === 'worktree'
  out.push('## Context', '', `A soak plan (seed ${seed}): every agent logs its start and, last, its end to runs.log.`, '')
  out.push('## Agents', '')
  const agent = (id, deps, script, creates = []) => {
    out.push(`### ${id}: step ${id.toLowerCase()}`, `- **depends_on**: [${deps.join(', ')}]`, `- **creates**: [${creates.map((c) => `\`${c}\``).join(', ')}]`, '- **prompt**: |')
    for (const line of script) out.push(`    ${line}`)
    out.push('')
  }
  const log = `'${runsLog}'`
  if (gate) agent('GATE', [], [`echo "start GATE $MDPLAN_AGENT_ID" >> ${log}`, `while [ ! -f '${gateFile}' ]; do sleep 0.05; done`, `echo "done GATE $MDPLAN_AGENT_ID" >> ${log}`])
  for (let i = 0; i < agents; i++) {
    const deps = new Set()
    const count = i === 0 ? 0 : Math.floor(rand() * 3)
    for (let k = 0; k < count; k++) deps.add(ids[Math.max(0, i - 1 - Math.floor(rand() * Math.min(8, i)))])
    const ms = Math.round(minMs + rand() * (maxMs - minMs))
    // Work in 50 ms steps, each logged: a step logged after another copy of the agent started
    // means two copies ran at once.
    const steps = Math.max(1, Math.round(ms / 50))
    agent(
      ids[i],
      [...deps],
      [
        `echo "start ${ids[i]} $MDPLAN_AGENT_ID" >> ${log}`,
        `i=0; while [ $i -lt ${steps} ]; do sleep 0.05; echo "tick ${ids[i]} $MDPLAN_AGENT_ID" >> ${log}; i=$((i+1)); done`,
        ...(files ? [`mkdir -p out && echo ${ids[i]} > out/${ids[i]}.txt`] : []),
        `echo "done ${ids[i]} $MDPLAN_AGENT_ID" >> ${log}`
      ],
      files ? [`out/${ids[i]}.txt`] : []
    )
  }
  out.push('## Execution State', '', '| Agent | Status | Agent ID | Duration | Notes |', '|-------|--------|----------|----------|-------|')
  for (const id of [...(gate ? ['GATE'] : []), ...ids]) out.push(`| ${id} | pending | — | — | |`)
  out.push('', 'Started: —', 'Last updated: —', 'Build: not yet run', '')
  return {text: out.join('\n'), ids: gate ? ['GATE', ...ids] : ids}
}

/**
 * The plan as mdplan's own parser reads it: `ok` is false when it has an error
 * (parse or validation) or its table lost or gained rows.
 */
export function readPlan(file, expectedIds) {
  const text = readFileSync(file, 'utf8')
  const plan = parsePlan(text, file)
  const errors = [...plan.messages, ...validatePlan(plan)].filter((d) => d.severity === 'error')
  const table = plan.state?.table
  const rows = new Map()
  for (const row of table?.rows ?? []) {
    const cell = (i) => (i === undefined || i < 0 ? '' : (row.cells[i]?.value ?? ''))
    rows.set(row.agent, {status: row.status ?? row.statusRaw, agentId: cell(table.index.agentId), notes: cell(table.index.notes), cells: row.cells.length})
  }
  const problems = errors.map((d) => `${d.place?.start?.line ?? d.place?.line ?? '?'}: ${d.reason} [${d.rule}]`)
  if (!table) problems.push('no Execution State table')
  if (expectedIds) {
    if (rows.size !== expectedIds.length || expectedIds.some((id) => !rows.has(id))) problems.push(`table has ${rows.size} rows, expected ${expectedIds.length}`)
    const widths = new Set([...rows.values()].map((row) => row.cells))
    if (widths.size > 1 || (table && !widths.has(table.columns.length))) problems.push(`rows have ${[...widths].join('/')} cells, the header ${table?.columns.length}`)
  }
  return {ok: problems.length === 0, problems, text, rows}
}

/** runs.log as entries {kind: start|tick|done, id, agentId, offset} (offset: where the line starts). */
export function readRuns(file) {
  if (!existsSync(file)) return []
  const text = readFileSync(file, 'utf8')
  const entries = []
  let offset = 0
  for (const line of text.split('\n')) {
    const [kind, id, agentId] = line.split(' ')
    if (kind === 'start' || kind === 'tick' || kind === 'done') entries.push({kind, id, agentId, offset})
    offset += Buffer.byteLength(line) + 1
  }
  return entries
}

export function fileSize(file) {
  return existsSync(file) ? readFileSync(file).length : 0
}

/**
 * Agent processes (and their children) of a plan, found by the MDPLAN_PLAN
 * variable the shell runner sets: what survives a SIGKILL of `mdplan run`.
 * Zombies are dead (PID 1 here never reaps orphans).
 */
export function agentProcesses(planFile) {
  if (!existsSync('/proc')) return []
  const needle = `MDPLAN_PLAN=${planFile}\0`
  const pids = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      if (/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${name}/stat`, 'utf8'))) continue
      if (readFileSync(`/proc/${name}/environ`, 'latin1').includes(needle)) pids.push(Number(name))
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return pids
}

/** Kill what a crash would have killed with mdplan: its agents. Resolves once none is left. */
export async function killAgents(planFile) {
  for (let round = 0; round < 100; round++) {
    const pids = agentProcesses(planFile)
    if (pids.length === 0) return
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // Already gone.
      }
    }
    await sleep(20)
  }
}

export function leftoverTempFiles(dir) {
  return readdirSync(dir).filter((name) => name.endsWith('.mdplan-tmp'))
}

/** Row of a results table: {figure, value, target, holds}. */
export function row(figure, value, target, holds) {
  return {figure, value, target, holds}
}
