// A 200-agent plan on two runners, whose claude account's quota runs out halfway (issue 33): the fake claude
// (fixtures/agents/claude, scenario `quota`) takes 50 launches, then says its limit is reached until 3 s after
// the first refusal; codex (the fake) has no limit. Counted from both sides: mdplan's --json events and the
// fakes' own logs (each launch and its end, FAKE_STATE_DIR/quota.log; every codex invocation, FAKE_ARGV_LOG).
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {sleepDag} from '../sleep-dag.js'
import {gitInit} from '../git-init.js'
import {loadAverage} from '../load-average.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const bin = join(root, 'bin', 'mdplan.js')
const agents = 200
const quota = 50

function plan(nodes) {
  const lines = ['---', 'concurrency: 8', '---', '', '# Parallel Plan: quota', '', '## Agents', '']
  for (const [index, node] of nodes.entries()) {
    lines.push(`### ${node.id}: step`, `- **depends_on**: [${node.deps.join(', ')}]`, `- **runner**: ${index % 2 === 0 ? 'claude' : 'codex'}`)
    lines.push('- **prompt**: |', `    QUOTA-AGENT ${node.id} does its step.`, '')
  }
  return lines.join('\n')
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'mdplan-bench-quota-'))
  const state = join(dir, 'fake-state')
  const nodes = sleepDag({agents, seed: 11, minMs: 0, maxMs: 0, maxDeps: 1})
  writeFileSync(join(dir, 'plan.md'), plan(nodes))
  gitInit(dir)
  const env = {
    ...process.env,
    NO_COLOR: '1',
    MDPLAN_CLAUDE_BIN: join(root, 'fixtures', 'agents', 'claude'),
    MDPLAN_CODEX_BIN: join(root, 'fixtures', 'agents', 'codex'),
    FAKE_SCENARIO: 'quota',
    FAKE_QUOTA: String(quota),
    FAKE_RESET_IN_S: '3',
    FAKE_DELAY_MS: '100',
    FAKE_STATE_DIR: state,
    FAKE_ARGV_LOG: join(dir, 'argv.jsonl'),
    MDPLAN_RESET_MARGIN_MS: '500'
  }
  const started = Date.now()
  const result = spawnSync(process.execPath, [bin, 'run', 'plan.md', '--json', '--wait-for-reset'], {cwd: dir, env, encoding: 'utf8', maxBuffer: 1 << 28})
  const seconds = (Date.now() - started) / 1000
  const figures = count(dir, result)
  rmSync(dir, {recursive: true, force: true})
  const load = loadAverage()
  const ok = result.status === 0 && figures.completedOnce === agents && figures.spentAttempts === 0
  return [
    {figure: `usage limit, ${agents} agents on claude and codex: claude launches after its first limit, before its reset`, value: `${figures.launchedInWait} (mdplan's events), ${figures.startedInWait} (the fake's log; ${figures.inFlight} more launched before the limit reached mdplan, started after); codex launches meanwhile ${figures.codexInWait}; ${load}`, target: '0', holds: figures.launchedInWait === 0 && figures.startedInWait === 0, issue: 33},
    {figure: `usage limit, ${agents} agents: every agent completed once, no attempt spent by the limit`, value: `exit ${result.status}, ${figures.completedOnce} of ${agents} completed once (agents' side), ${figures.limited} refused launches, ${figures.spentAttempts} attempts spent; ${seconds.toFixed(1)} s`, target: `${agents}, 0 spent`, holds: ok, issue: 33}
  ]
}

function count(dir, result) {
  const events = result.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line))
  const pause = events.find((event) => event.type === 'paused' && event.account === 'claude on local')
  const at = pause ? Date.parse(pause.time) : Infinity
  const until = pause ? pause.untilMs : -Infinity
  const claudeAgents = new Set(events.filter((event) => event.type === 'launched' && Number(event.agent.slice(1)) % 2 === 0).map((event) => event.agent))
  const launchedInWait = events.filter((event) => event.type === 'launched' && claudeAgents.has(event.agent) && Date.parse(event.time) > at && Date.parse(event.time) < until).length
  const codexInWait = events.filter((event) => event.type === 'launched' && !claudeAgents.has(event.agent) && Date.parse(event.time) > at && Date.parse(event.time) < until).length
  const log = readFileSync(join(dir, 'fake-state', 'quota.log'), 'utf8').trim().split('\n').map((line) => line.split(' '))
  // From the agents' side: claude processes that started in the wait. One mdplan launched before it saw the limit
  // (its `launched` event before the pause) may start a moment after, its spawn in flight: counted apart.
  const launches = new Map()
  for (const event of events) if (event.type === 'launched') launches.set(event.agent, [...(launches.get(event.agent) ?? []), Date.parse(event.time)])
  // The launch a start belongs to: the agent's last one before it.
  const launchOf = (tag, ms) => Math.max(-Infinity, ...(launches.get(tag) ?? []).filter((time) => time <= ms))
  const startsInWait = log.filter(([ms, word]) => word === 'start' && Number(ms) > at && Number(ms) < until)
  const inFlight = startsInWait.filter(([ms, , , tag]) => launchOf(tag, Number(ms)) <= at).length
  const startedInWait = startsInWait.length - inFlight
  const done = new Map()
  for (const [, word, , tag] of log) if (word === 'ok') done.set(tag, (done.get(tag) ?? 0) + 1)
  const codex = readFileSync(join(dir, 'argv.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line)).filter((line) => line.bin === 'codex' && line.argv.includes('exec'))
  for (const line of codex) {
    const tag = /QUOTA-AGENT (\S+)/.exec(line.argv.join(' '))?.[1]
    if (tag) done.set(tag, (done.get(tag) ?? 0) + 1)
  }
  const completedOnce = [...done.values()].filter((n) => n === 1).length
  const table = readFileSync(join(dir, 'plan.md'), 'utf8')
  return {launchedInWait, codexInWait, startedInWait, inFlight, completedOnce, limited: log.filter(([, word]) => word === 'limited').length, spentAttempts: (table.match(/attempt \d+:/g) ?? []).length}
}
