#!/usr/bin/env node
// `npm run soak`: proof under stress. Kill soak (SIGKILL `mdplan run` at random moments and resume),
// concurrent editors (hand saves while a plan runs) and parser fuzzing. Prints a table of figures with targets and
// exits 1 when one is missed.
//
//   node bench/soak.js [--agents 100] [--kills 50] [--editor-agents 200] [--edits 200] [--seed 1]
//                      [--fuzz-runs 5000] [--saves-agents 1000] [--only kill|editors|saves|fuzz] [--editor-mode stale|rename|in-place|mixed]
//                      [--careless] [--crash] [--json] [--keep] [--verbose]
//                      [--git plain,commit,worktree] [--git-agents 40] [--git-kills 15] [--git-edits 60]
// saves: sed -i every 0.1 s on 100 agents, stale buffers, vim through tmux (skipped without tmux/vim), and one save a
// second on --saves-agents agents.
// --git: the kill and editor soaks run again, smaller, inside a git repository for each mode listed ('plain'; 'commit': commit: true;
// 'worktree': isolation: worktree; 'none' for no git run). Environment: SOAK_GIT, SOAK_GIT_AGENTS, SOAK_GIT_KILLS, SOAK_GIT_EDITS.
// Environment: SOAK_AGENTS, SOAK_KILLS, SOAK_EDITOR_AGENTS, SOAK_EDITS, SOAK_FUZZ_RUNS, SOAK_SEED.
// MDPLAN_BIN: soak another build of mdplan (the fuzz part always reads this checkout's dist/).
import {parseArgs} from 'node:util'
import {killSoak} from './soak/kill-soak.js'
import {editorSoak} from './soak/editor-soak.js'
import {fuzz} from './soak/fuzz.js'
import {savesSoakPart} from './soak/saves-soak.js'

const {values} = parseArgs({
  options: {
    agents: {type: 'string', default: process.env.SOAK_AGENTS ?? '100'},
    kills: {type: 'string', default: process.env.SOAK_KILLS ?? '50'},
    'editor-agents': {type: 'string', default: process.env.SOAK_EDITOR_AGENTS ?? '200'},
    edits: {type: 'string', default: process.env.SOAK_EDITS ?? '200'},
    'fuzz-runs': {type: 'string', default: process.env.SOAK_FUZZ_RUNS ?? '5000'},
    'saves-agents': {type: 'string', default: process.env.SOAK_SAVES_AGENTS ?? '1000'},
    seed: {type: 'string', default: process.env.SOAK_SEED ?? '1'},
    git: {type: 'string', default: process.env.SOAK_GIT ?? 'plain,commit,worktree'},
    'git-agents': {type: 'string', default: process.env.SOAK_GIT_AGENTS ?? '40'},
    'git-kills': {type: 'string', default: process.env.SOAK_GIT_KILLS ?? '15'},
    'git-edits': {type: 'string', default: process.env.SOAK_GIT_EDITS ?? '60'},
    'min-ms': {type: 'string', default: '50'},
    'max-ms': {type: 'string', default: '300'},
    'max-kill-ms': {type: 'string', default: '1000'},
    gap: {type: 'string', default: '100'},
    'editor-mode': {type: 'string', default: 'rename'},
    careless: {type: 'boolean', default: false},
    only: {type: 'string'},
    json: {type: 'boolean', default: false},
    crash: {type: 'boolean', default: false},
    keep: {type: 'boolean', default: false},
    verbose: {type: 'boolean', default: false}
  }
})

const n = (name) => {
  const value = Number(values[name])
  if (!Number.isFinite(value) || value < 0) {
    process.stderr.write(`soak: --${name} must be a number, got ${values[name]}\n`)
    process.exit(2)
  }
  return value
}
const seed = n('seed')
function gitModes() {
  const modes = values.git.split(',').map((mode) => mode.trim()).filter((mode) => mode !== '' && mode !== 'none')
  const unknown = modes.filter((mode) => !['plain', 'commit', 'worktree'].includes(mode))
  if (unknown.length > 0) {
    process.stderr.write(`soak: --git takes plain, commit, worktree or none, got ${unknown.join(', ')}\n`)
    process.exit(2)
  }
  return modes
}
const log = values.verbose ? (line) => process.stderr.write(`soak: ${line}\n`) : () => {}
const results = {}

if (!values.only || values.only === 'kill') {
  process.stderr.write(`soak: kill soak, ${n('agents')} agents, ${n('kills')} kills…\n`)
  results.kill = await killSoak({agents: n('agents'), kills: n('kills'), seed, minMs: n('min-ms'), maxMs: n('max-ms'), maxKillMs: n('max-kill-ms'), crash: values.crash, keep: values.keep, log})
  for (const git of gitModes()) {
    process.stderr.write(`soak: kill soak in git (${git}), ${n('git-agents')} agents, ${n('git-kills')} kills…\n`)
    results[`kill-git-${git}`] = await killSoak({agents: n('git-agents'), kills: n('git-kills'), seed, minMs: n('min-ms'), maxMs: n('max-ms'), maxKillMs: n('max-kill-ms'), crash: values.crash, keep: values.keep, git, log})
  }
}
if (!values.only || values.only === 'editors') {
  process.stderr.write(`soak: editors, ${n('editor-agents')} agents, ${n('edits')} saves…\n`)
  results.editors = await editorSoak({agents: n('editor-agents'), edits: n('edits'), mode: values['editor-mode'], careless: values.careless, gapMs: n('gap'), seed: seed + 1, minMs: n('min-ms'), maxMs: n('max-ms'), keep: values.keep, log})
  for (const git of gitModes()) {
    process.stderr.write(`soak: editors in git (${git}), ${n('git-agents')} agents, ${n('git-edits')} saves…\n`)
    results[`editors-git-${git}`] = await editorSoak({agents: n('git-agents'), edits: n('git-edits'), mode: values['editor-mode'], careless: values.careless, gapMs: n('gap'), seed: seed + 1, minMs: n('min-ms'), maxMs: n('max-ms'), keep: values.keep, git, log})
  }
}

if (!values.only || values.only === 'saves') {
  process.stderr.write(`soak: saves (sed -i, stale buffers, vim), 100 and ${n('saves-agents')} agents…\n`)
  results.saves = await savesSoakPart({log, big: n('saves-agents')})
}

if (!values.only || values.only === 'fuzz') {
  process.stderr.write(`soak: fuzz, ${n('fuzz-runs')} mutated plans…\n`)
  results.fuzz = fuzz({runs: n('fuzz-runs'), seed})
}

const rows = Object.values(results).flatMap((r) => r.rows)
const missed = rows.filter((r) => r.holds === false)
if (values.json) {
  process.stdout.write(JSON.stringify(results, null, 2) + '\n')
} else {
  const header = ['figure', 'value', 'target', 'holds']
  const cells = rows.map((r) => [r.figure, String(r.value), r.target ?? '—', r.holds === null ? '—' : r.holds ? 'yes' : 'NO'])
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)))
  const line = (c) => '| ' + c.map((v, i) => v.padEnd(widths[i])).join(' | ') + ' |'
  console.log(line(header))
  console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|')
  for (const c of cells) console.log(line(c))
  console.log(`\n${rows.length} figures, ${missed.length} off target`)
  // The details of a miss, so a failure can be reproduced and read.
  for (const [name, r] of Object.entries(results)) {
    const details = Object.entries(r).filter(([key, v]) => key !== 'rows' && Array.isArray(v) && v.length > 0)
    for (const [key, v] of details) console.log(`${name}.${key}: ${v.slice(0, 10).join(' | ')}${v.length > 10 ? ` … (${v.length})` : ''}`)
    if (r.finalOutput) console.log(`${name}.finalOutput: ${r.finalOutput.slice(-800)}`)
    if (r.stderr) console.log(`${name}.stderr: ${r.stderr.slice(-800)}`)
  }
}
process.exitCode = missed.length > 0 ? 1 : 0
