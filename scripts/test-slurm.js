// The Slurm host against a REAL single-node Slurm cluster (npm run test:slurm; not part of npm test).
//
// Brings up munged, slurmctld and slurmd from the Debian packages (slurm-wlm,
// munge) with all their state in a temp folder (their own ports, socket, key,
// spool and logs; nothing under /etc or /var is used), runs
// test/e2e/hosts/hosts-slurm-real.test.ts against it (a 20-agent DAG in a git
// repository, a coordinator SIGKILL mid-run and a rerun; or the test files
// given: `npm run test:slurm -- test/e2e/hosts/x.test.ts`), then stops the
// daemons by their PIDs. Exit 0 when the test passed; when the packages are
// missing it says so in one line and exits 0 (skipped), so CI can run it
// wherever they install.
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {hostname, tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const missing = ['munged', 'mungekey', 'slurmctld', 'slurmd', 'sbatch', 'squeue', 'scancel', 'sinfo'].filter((bin) => spawnSync('sh', ['-c', `command -v ${bin} || test -x /usr/sbin/${bin}`]).status !== 0)
if (missing.length > 0) {
  console.log(`test:slurm: skipped: ${missing.join(', ')} not installed (apt-get install slurm-wlm munge)`)
  process.exit(0)
}
const sbin = (name) => (spawnSync('sh', ['-c', `command -v ${name}`], {encoding: 'utf8'}).stdout.trim() || `/usr/sbin/${name}`)
const scratch = mkdtempSync(join(tmpdir(), 'mdplan-slurm-'))
for (const folder of ['munge', 'slurm/state', 'slurm/spool', 'slurm/log', 'shared']) mkdirSync(join(scratch, folder), {recursive: true})
const port = 20000 + Math.floor(Math.random() * 20000)
const node = hostname().split('.')[0]
const conf = join(scratch, 'slurm', 'slurm.conf')
writeFileSync(
  conf,
  `ClusterName=mdplantest
SlurmctldHost=${node}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=${scratch}/munge/munge.socket.2
SlurmctldPort=${port}
SlurmdPort=${port + 1}
StateSaveLocation=${scratch}/slurm/state
SlurmdSpoolDir=${scratch}/slurm/spool
SlurmctldPidFile=${scratch}/slurm/slurmctld.pid
SlurmdPidFile=${scratch}/slurm/slurmd.pid
SlurmctldLogFile=${scratch}/slurm/log/slurmctld.log
SlurmdLogFile=${scratch}/slurm/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=${scratch}/slurm/log/jobcomp.txt
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MinJobAge=300
ReturnToService=2
SchedulerType=sched/backfill
MpiDefault=none
NodeName=${node} CPUs=2 RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=${node} Default=YES MaxTime=INFINITE State=UP
SlurmdTimeout=30
`
)
const env = {...process.env, SLURM_CONF: conf}
const pids = []
const run = (file, args) => {
  const result = spawnSync(file, args, {env, encoding: 'utf8'})
  if (result.status !== 0) throw new Error(`${file} ${args.join(' ')}: ${result.stderr || result.error}`)
  return result.stdout
}
const pidOf = (file) => (existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : undefined)
let code = 1
try {
  const munge = join(scratch, 'munge')
  run(sbin('mungekey'), ['--create', '--keyfile', join(munge, 'munge.key')])
  run(sbin('munged'), ['--force', `--socket=${munge}/munge.socket.2`, `--key-file=${munge}/munge.key`, `--pid-file=${munge}/munged.pid`, `--log-file=${munge}/munged.log`, `--seed-file=${munge}/munged.seed`])
  pids.push(join(munge, 'munged.pid'))
  run(sbin('slurmctld'), ['-f', conf])
  pids.push(join(scratch, 'slurm', 'slurmctld.pid'))
  run(sbin('slurmd'), ['-f', conf])
  pids.push(join(scratch, 'slurm', 'slurmd.pid'))
  // Up when the node says idle (a few seconds after the daemons start).
  const deadline = Date.now() + 60_000
  for (;;) {
    const state = spawnSync('sinfo', ['--noheader', '--format=%t'], {env, encoding: 'utf8'}).stdout.trim()
    if (state === 'idle') break
    if (Date.now() > deadline) throw new Error(`the node did not come up (sinfo: ${state || 'no answer'}); see ${scratch}/slurm/log`)
    spawnSync('sleep', ['0.5'])
  }
  console.log(`test:slurm: a single-node cluster is up (${scratch})`)
  const files = process.argv.slice(2)
  const test = spawnSync('npx', ['vitest', 'run', '--maxWorkers=1', ...(files.length > 0 ? files : ['test/e2e/hosts/hosts-slurm-real.test.ts'])], {cwd: root, env: {...env, MDPLAN_REAL_SLURM: join(scratch, 'shared')}, stdio: 'inherit'})
  code = test.status ?? 1
} catch (error) {
  console.error(`test:slurm: ${error instanceof Error ? error.message : String(error)}`)
} finally {
  spawnSync('scancel', ['--partition=debug'], {env})
  // Stopped by PID (never by name: other Slurm or munge daemons on this machine are not ours), slurmd first.
  for (const file of pids.reverse()) {
    const pid = pidOf(file)
    if (pid) {
      try {
        process.kill(pid, 'SIGTERM')
      } catch {
        // Ended already.
      }
    }
  }
}
process.exit(code)
