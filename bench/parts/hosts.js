// Agents on other machines (issue 21): 200 agents of 100 ms on two localhost ssh hosts (real sshd
// daemons, bench/sshd.js) against the same plan run locally, both in a git repository.
// The cost of a remote launch: (remote makespan − local makespan) × slots ÷ agents, the time each launch
// adds while it holds a slot (ship the base, submit, follow, collect, merge); the DAG's longest chain is
// short (14 agents), so the run is bound by slots, not by waiting.
// Runs only when asked (`npm run bench -- hosts`): it needs openssh-server.
import {execFileSync} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {sleepDag, toPlan} from '../sleep-dag.js'
import {gitInit} from '../git-init.js'
import {sshdMissing, startSshd} from '../sshd.js'

const bin = fileURLToPath(new URL('../../bin/mdplan.js', import.meta.url))
const agents = Number(process.env.BENCH_HOST_AGENTS ?? 200)
const slots = 8

export async function run() {
  if (!process.argv.slice(2).some((arg) => arg.includes('hosts'))) return []
  const missing = sshdMissing()
  if (missing) return [{figure: 'agents on ssh hosts', value: `skipped: ${missing}`, target: null, holds: null}]
  const sshd = await startSshd(2)
  try {
    const nodes = sleepDag({agents, seed: 7, minMs: 100, maxMs: 100})
    const local = makespan(nodes, [])
    const hosts = sshd.hosts.map((h) => `  ${h.alias}: {type: ssh, address: ${h.alias}, config: '${sshd.config}', dir: '${h.dir}', slots: ${slots}}`)
    const remote = makespan(nodes, ['hosts:', ...hosts, `host: [${sshd.hosts.map((h) => h.alias).join(', ')}]`])
    const perLaunch = ((remote - local) * 2 * slots) / agents / 1000
    return [
      {figure: `makespan, ${agents} agents of 100 ms, 16 at once: two ssh hosts vs local`, value: `${(remote / 1000).toFixed(2)}s vs ${(local / 1000).toFixed(2)}s`, target: 'reported', holds: null},
      {figure: 'cost of a remote launch per agent (connection shared)', value: `${perLaunch.toFixed(3)}s`, target: '≤ 0.3s', holds: perLaunch <= 0.3}
    ]
  } finally {
    await sshd.close()
  }
}

function makespan(nodes, front) {
  const dir = mkdtempSync(join(tmpdir(), 'mdplan-bench-hosts-'))
  try {
    const text = toPlan(nodes, {concurrency: 2 * slots}).replace('---\n\n#', `${front.length ? `${front.join('\n')}\n` : ''}---\n\n#`)
    writeFileSync(join(dir, 'plan.md'), text)
    gitInit(dir)
    const start = process.hrtime.bigint()
    execFileSync(process.execPath, [bin, 'run', 'plan.md', '--quiet'], {cwd: dir, env: {...process.env, NO_COLOR: '1'}, stdio: 'ignore'})
    return Number(process.hrtime.bigint() - start) / 1e6
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}
