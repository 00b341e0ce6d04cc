// Agents on other machines (issues 21 and 24): agents of 100 ms on two localhost ssh hosts (real sshd
// daemons, bench/sshd.js) against the same plan run locally, both in a git repository.
// 1. The cost of a remote launch (BENCH_HOST_AGENTS, default 200), two ways:
//    - in a crowd: (remote makespan − local makespan) × slots ÷ agents, the time each launch adds while it
//      holds a slot (ship the base, submit, follow, collect, merge); the DAG's longest chain is short
//      (14 agents), so the run is bound by slots, not by waiting. On this machine the two "hosts" are the
//      coordinator's own 2 cores, so with 16 jobs at once this is bound by CPU as well: it counts the hosts'
//      work (sshd, the job scripts, git) as if it were the coordinator's.
//    - one at a time: a chain of 20 agents, each waiting for the one before, (remote − local) ÷ 20: what a
//      launch adds to an agent's time when nothing else competes for the CPU.
//    Each with hosts whose login shell starts bare (the target) and with this machine's root ~/.bashrc
//    (pyenv init: every ssh call runs it), reported beside it.
// 2. The coordinator's CPU per agent (BENCH_HOST_CPU_AGENTS, default 500; 0 skips it): user + sys of the
//    `mdplan run` process and every process it waits for (its ssh clients, git), from the shell's `times`,
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
const chainAgents = 20
const slots = 8

export async function run() {
  if (!process.argv.slice(2).some((arg) => arg.includes('hosts'))) return []
  const missing = sshdMissing()
  if (missing) return [{figure: 'agents on ssh hosts', value: `skipped: ${missing}`, target: null, holds: null}]
  const lean = await startSshd(2, {leanShell: true})
  const rc = await startSshd(2)
  const rows = []
  try {
    const front = (sshd) => [
      'hosts:',
      ...sshd.hosts.map((h) => `  ${h.alias}: {type: ssh, address: ${h.alias}, config: '${sshd.config}', dir: '${h.dir}', slots: ${slots}}`),
      `host: [${sshd.hosts.map((h) => h.alias).join(', ')}]`
    ]
    const call = async (sshd) => `${(await sshCallMs(sshd)).toFixed(0)} ms`
    rows.push({figure: 'one ssh call through the shared connection (`sh -c true`): hosts with a bare shell / with this machine\'s ~/.bashrc', value: `${await call(lean)} / ${await call(rc)} (${loadAverage()})`, target: 'reported', holds: null})
    if (agents > 0) {
      const nodes = sleepDag({agents, seed: 7, minMs: 100, maxMs: 100})
      const local = await runPlan(nodes, [], lean.config)
      const remote = await runPlan(nodes, front(lean), lean.config)
      const withRc = await runPlan(nodes, front(rc), rc.config)
      const load = loadAverage()
      const perLaunch = (wallMs) => ((wallMs - local.wallMs) * 2 * slots) / agents / 1000
      rows.push(
        {figure: `makespan, ${agents} agents of 100 ms, 16 at once: two ssh hosts (bare shell / ~/.bashrc) vs local`, value: `${(remote.wallMs / 1000).toFixed(2)}s / ${(withRc.wallMs / 1000).toFixed(2)}s vs ${(local.wallMs / 1000).toFixed(2)}s (${load})`, target: 'reported', holds: null},
        {figure: 'cost of a remote launch per agent (connection shared), in a crowd: 16 at once on 2 cores shared with both hosts', value: `${perLaunch(remote.wallMs).toFixed(3)}s (${load})`, target: '≤ 0.3s', holds: perLaunch(remote.wallMs) <= 0.3},
        {figure: 'the same, hosts running this machine\'s ~/.bashrc on every call', value: `${perLaunch(withRc.wallMs).toFixed(3)}s (${load})`, target: 'reported', holds: null}
      )
      const chain = Array.from({length: chainAgents}, (_, index) => ({id: `T${index}`, deps: index === 0 ? [] : [`T${index - 1}`], ms: 100}))
      const chainLocal = await runPlan(chain, [], lean.config)
      const chainRemote = await runPlan(chain, front(lean), lean.config)
      const chainRc = await runPlan(chain, front(rc), rc.config)
      const chainLoad = loadAverage()
      const added = (wallMs) => (wallMs - chainLocal.wallMs) / chainAgents / 1000
      rows.push(
        {figure: `cost of a remote launch per agent (connection shared), one at a time: a chain of ${chainAgents}`, value: `${added(chainRemote.wallMs).toFixed(3)}s (${chainLoad})`, target: '≤ 0.3s', holds: added(chainRemote.wallMs) <= 0.3},
        {figure: 'the same, hosts running this machine\'s ~/.bashrc on every call', value: `${added(chainRc.wallMs).toFixed(3)}s (${chainLoad})`, target: 'reported', holds: null}
      )
    }
    if (cpuAgents > 0) {
      const nodes = sleepDag({agents: cpuAgents, seed: 11, minMs: 100, maxMs: 100})
      const local = await runPlan(nodes, [], lean.config)
      const remote = await runPlan(nodes, front(lean), lean.config)
      const load = loadAverage()
      const per = (ms) => `${(ms / cpuAgents).toFixed(1)} ms`
      rows.push({
        figure: `coordinator CPU per agent, ${cpuAgents} agents on two ssh hosts (mdplan + its ssh clients, git; + ssh masters) vs local (mdplan + agents)`,
        value: `${per(remote.cpuMs + remote.masterCpuMs)} (${per(remote.cpuMs)} + masters ${per(remote.masterCpuMs)}) vs ${per(local.cpuMs)}; the whole machine (hosts included, and whatever else runs): ${per(remote.machineMs)} vs ${per(local.machineMs)}; makespan ${(remote.wallMs / 1000).toFixed(1)}s vs ${(local.wallMs / 1000).toFixed(1)}s (${load})`,
        target: 'reported',
        holds: null
      })
    }
    return rows
  } finally {
    await lean.close()
    await rc.close()
  }
}

/** The median of 10 calls of `sh -c true` on the fixture's first host, its master connection up. */
async function sshCallMs(sshd) {
  const host = sshd.hosts[0].alias
  const control = ['-F', sshd.config, '-o', 'BatchMode=yes', '-o', `ControlPath=${join(tmpdir(), `mdplan-bench-cm-${process.pid}-%C`)}`]
  const ssh = promisify(execFile)
  await ssh('ssh', [...control, '-o', 'ControlMaster=yes', '-o', 'ControlPersist=30', '-f', '-N', host])
  try {
    const times = []
    for (let index = 0; index < 10; index++) {
      const start = process.hrtime.bigint()
      await ssh('ssh', [...control, '-o', 'ControlMaster=no', host, 'sh -c true'])
      times.push(Number(process.hrtime.bigint() - start) / 1e6)
    }
    return times.sort((a, b) => a - b)[5]
  } finally {
    await ssh('ssh', [...control, '-O', 'exit', host]).catch(() => undefined)
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
    const busyBefore = busyMs()
    const start = process.hrtime.bigint()
    // `times`: the shell's children (mdplan, and every process mdplan waited for) in user and sys time.
    const {stdout: times} = await promisify(execFile)('sh', ['-c', '"$@" > /dev/null 2>&1; times', 'bench', process.execPath, bin, 'run', 'plan.md', '--quiet'], {
      cwd: dir,
      env: {...process.env, NO_COLOR: '1'},
      encoding: 'utf8',
      maxBuffer: 1 << 20
    })
    const wallMs = Number(process.hrtime.bigint() - start) / 1e6
    const machineMs = busyMs() - busyBefore
    sampleMasters(sshConfig, masters)
    const [, children = ''] = times.trim().split('\n')
    const cpuMs = [...children.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, m) => sum + (Number(m[1]) * 60 + Number(m[2])) * 1000, 0)
    return {wallMs, cpuMs, machineMs, masterCpuMs: [...masters.values()].reduce((a, b) => a + b, 0)}
  } finally {
    clearInterval(sample)
    rmSync(dir, {recursive: true, force: true})
  }
}

const ticks = 100

/** CPU time every process of the machine spent so far (all cores, user + nice + system + irq + softirq), in ms. */
function busyMs() {
  const [cpu] = readFileSync('/proc/stat', 'utf8').split('\n')
  const [user, nice, system, , , irq, softirq] = cpu.split(/\s+/).slice(1).map(Number)
  return ((user + nice + system + irq + softirq) * 1000) / ticks
}

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
