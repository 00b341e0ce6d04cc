// The cost of git snapshots at launch (issue 13: 8 s per launch with 20,000 untracked files): 20 agents launched
// together in a repository holding 20,000 untracked files, against the same folder outside git. Target: < 2 s more.
import {execFileSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {gitInit} from '../git-init.js'
import {median} from '../median.js'

const bin = fileURLToPath(new URL('../../bin/mdplan.js', import.meta.url))
const pairs = Number(process.env.BENCH_PAIRS ?? 3)
const agents = 20
const untracked = 20_000

function plan() {
  const lines = ['---', 'runner: shell', `concurrency: ${agents}`, '---', '', '# Parallel Plan: snapshot cost', '', '## Agents', '']
  for (let i = 0; i < agents; i++) lines.push(`### S${i}: write-${i}`, '- **depends_on**: []', `- **creates**: [\`out/s${i}.txt\`]`, '- **prompt**: |', `    mkdir -p out && echo ${i} > out/s${i}.txt`, '')
  return lines.join('\n')
}

/** A folder of `untracked` small files in 200 subfolders, plus the plan; a repository when `inGit`. */
function project(inGit) {
  const dir = mkdtempSync(join(tmpdir(), 'mdplan-snapshot-'))
  for (let folder = 0; folder < 200; folder++) {
    mkdirSync(join(dir, 'junk', String(folder)), {recursive: true})
    for (let file = 0; file < untracked / 200; file++) writeFileSync(join(dir, 'junk', String(folder), `${file}.txt`), `${folder}/${file}\n`)
  }
  if (inGit) {
    writeFileSync(join(dir, 'README.md'), '# bench\n')
    gitInit(dir, ['README.md'])
  }
  return dir
}

/** One run from a fresh plan (the agents' output and logs of an earlier run removed). */
function runMs(dir) {
  rmSync(join(dir, 'out'), {recursive: true, force: true})
  rmSync(join(dir, '.mdplan'), {recursive: true, force: true})
  writeFileSync(join(dir, 'plan.md'), plan())
  const start = process.hrtime.bigint()
  execFileSync(process.execPath, [bin, 'run', 'plan.md', '--quiet'], {cwd: dir, env: {...process.env, NO_COLOR: '1'}})
  return Number(process.hrtime.bigint() - start) / 1e6
}

export async function run() {
  const times = {git: [], plain: []}
  const dirs = {git: project(true), plain: project(false)}
  for (let pair = 0; pair < pairs; pair++) {
    for (const place of pair % 2 === 0 ? ['plain', 'git'] : ['git', 'plain']) times[place].push(runMs(dirs[place]))
  }
  for (const dir of Object.values(dirs)) rmSync(dir, {recursive: true, force: true})
  const extra = (median(times.git) - median(times.plain)) / 1000
  return [
    {
      figure: `${agents} agents launched together, ${untracked} untracked files: git minus no git`,
      value: `${extra.toFixed(2)} s (in git ${(median(times.git) / 1000).toFixed(2)}s, outside ${(median(times.plain) / 1000).toFixed(2)}s)`,
      target: '< 2 s',
      holds: extra < 2
    }
  ]
}
