// Agents on other machines (issues 21 and 24): agents of 100 ms on two localhost ssh hosts (real sshd
// daemons, bench/sshd.js) against the same plan run locally, both in a git repository.
// 1. The cost of a remote launch (BENCH_HOST_AGENTS, default 200): (remote makespan − local makespan) × slots
//    ÷ agents, the time each launch adds while it holds a slot (ship the base, submit, follow, collect, merge);
//    the DAG's longest chain is short (14 agents), so the run is bound by slots, not by waiting.
// 2. The coordinator's CPU per agent (BENCH_HOST_CPU_AGENTS, default 500; 0 skips it): user + sys of the
//    `mdplan run` process and every process it waits for (its ssh clients, git, tar), from the shell's `times`,
//    plus the ssh ControlMaster connections it starts (detached, so sampled from /proc while they live),
//    against the same plan run locally (there the agents themselves are children and are counted too).
//    The sshd side (sessions, job scripts, the agents, their git) is the "host" and is not counted.
// Runs only when asked (`npm run bench -- hosts`): it needs openssh-server.
import {execFile} from 'node:child_process'
import {promisify} from 'node:util'
import {mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {sleepDag, toPlan} from '../sleep-dag.js'
import {gitInit} from '../git-init.js'
import {loadAverage} from '../load-average.js'
import {sshdMissing, startSshd} from '../sshd.js'

const bin = fileURLToPath(new URL('../../bin/mdplan.js', import.meta.url))
const agents = Number(process.env.BENCH_HOST_AGENTS ?? 200)
const cpuAgents = Number(process.env.BENCH_HOST_CPU_AGENTS ?? 500)
const slots = 8

export async function run() {
  if (!process.argv.slice(2).some((arg) => arg.includes('hosts'))) return []
  const missing = sshdMissing()
  if (missing) return [{figure: 'agents on ssh hosts', value: `skipped: ${missing}`, target: null, holds: null}]
  const sshd = await startSshd(2)
  const rows = []
  try {
    const hosts = sshd.hosts.map((h) => `  ${h.alias}: {type: ssh, address: ${h.alias}, config: '${sshd.config}', dir: '${h.dir}', slots: ${slots}}`)
    const front = ['hosts:', ...hosts, `host: [${sshd.hosts.map((h) => h.alias).join(', ')}]`]
    if (agents > 0) {
      const nodes = sleepDag({agents, seed: 7, minMs: 100, maxMs: 100})
      const local = await runPlan(nodes, [], sshd.config)
      const remote = await runPlan(nodes, front, sshd.config)
      const load = loadAverage()
      const perLaunch = ((remote.wallMs - local.wallMs) * 2 * slots) / agents / 1000
      rows.push(
        {figure: `makespan, ${agents} agents of 100 ms, 16 at once: two ssh hosts vs local`, value: `${(remote.wallMs / 1000).toFixed(2)}s vs ${(local.wallMs / 1000).toFixed(2)}s (${load})`, target: 'reported', holds: null},
        {figure: 'cost of a remote launch per agent (connection shared)', value: `${perLaunch.toFixed(3)}s (${load})`, target: '≤ 0.3s', holds: perLaunch <= 0.3}
      )
    }
    if (cpuAgents > 0) {
      const nodes = sleepDag({agents: cpuAgents, seed: 11, minMs: 100, maxMs: 100})
      const local = await runPlan(nodes, [], sshd.config)
      const remote = await runPlan(nodes, front, sshd.config)
      const load = loadAverage()
      const per = (ms) => `${(ms / cpuAgents).toFixed(1)} ms`
      rows.push({
        figure: `coordinator CPU per agent, ${cpuAgents} agents on two ssh hosts (mdplan + its ssh clients, git, tar; + ssh masters) vs local (mdplan + agents)`,
        value: `${per(remote.cpuMs + remote.masterCpuMs)} (${per(remote.cpuMs)} + masters ${per(remote.masterCpuMs)}) vs ${per(local.cpuMs)}; makespan ${(remote.wallMs / 1000).toFixed(1)}s vs ${(local.wallMs / 1000).toFixed(1)}s (${load})`,
        target: 'reported',
        holds: null
      })
    }
    return rows
  } finally {
    await sshd.close()
  }
}

/** Run the plan; wall time, the CPU of mdplan and its waited-for descendants, and of the ssh masters it started. */
async function runPlan(nodes, front, sshConfig) {
  const dir = mkdtempSync(join(tmpdir(), 'mdplan-bench-hosts-'))
  const masters = new Map()
  const sample = setInterval(() => sampleMasters(sshConfig, masters), 200)
  try {
    const text = toPlan(nodes, {concurrency: 2 * slots}).replace('---\n\n#', `${front.length ? `${front.join('\n')}\n` : ''}---\n\n#`)
    writeFileSync(join(dir, 'plan.md'), text)
    gitInit(dir)
    const start = process.hrtime.bigint()
    // `times`: the shell's children (mdplan, and every process mdplan waited for) in user and sys time.
    const {stdout: times} = await promisify(execFile)('sh', ['-c', '"$@" > /dev/null 2>&1; times', 'bench', process.execPath, bin, 'run', 'plan.md', '--quiet'], {
      cwd: dir,
      env: {...process.env, NO_COLOR: '1'},
      encoding: 'utf8',
      maxBuffer: 1 << 20
    })
    const wallMs = Number(process.hrtime.bigint() - start) / 1e6
    sampleMasters(sshConfig, masters)
    const [, children = ''] = times.trim().split('\n')
    const cpuMs = [...children.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, m) => sum + (Number(m[1]) * 60 + Number(m[2])) * 1000, 0)
    return {wallMs, cpuMs, masterCpuMs: [...masters.values()].reduce((a, b) => a + b, 0)}
  } finally {
    clearInterval(sample)
    rmSync(dir, {recursive: true, force: true})
  }
}

const ticks = 100

/** The ssh ControlMaster processes of this bench's ssh config: their CPU so far (ms), by pid. */
function sampleMasters(sshConfig, masters) {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      if (!args.startsWith('ssh\0') || !args.includes('ControlMaster=yes') || !args.includes(sshConfig)) continue
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      masters.set(pid, ((Number(fields[11]) + Number(fields[12])) * 1000) / ticks)
    } catch {
      // Gone between the listing and the read.
    }
  }
}
