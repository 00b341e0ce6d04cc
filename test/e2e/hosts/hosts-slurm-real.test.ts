import {mkdtemp} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'
import {duplicates, logged, randomDag, readAgentLog} from '../../helpers/agent-log.js'

// Set by scripts/test-slurm.js (npm run test:slurm) once a real single-node cluster is up: the shared job folder.
const shared = process.env.MDPLAN_REAL_SLURM
if (!shared) console.log('hosts-slurm-real: skipped: needs a real Slurm cluster (run `npm run test:slurm`)')

beforeAll(isolateGitConfig)

describe.skipIf(!shared)('agents as jobs of a real Slurm cluster', () => {
  it('a 20-agent DAG with a coordinator SIGKILL mid-run and a rerun: each agent ran exactly once, all work merged', async () => {
    const log = join(await mkdtemp(join(tmpdir(), 'mdplan-slurm-real-')), 'agents.log')
    const dag = randomDag(20, 11, 200, 1500)
    const agents = Object.fromEntries(
      dag.map((agent) => [agent.id, {deps: agent.deps, creates: [`out/${agent.id}.txt`], script: logged(log, `sleep ${(agent.ms / 1000).toFixed(3)}\nmkdir -p out\necho ${agent.id} > out/${agent.id}.txt`)}])
    )
    const repo = await tempRepo()
    const front = ['concurrency: 4', 'commit: true', 'hosts:', `  hpc: {type: slurm, dir: '${shared}', partition: debug, cpus: 1, time: '10:00', slots: 4}`, 'host: hpc'].join('\n')
    await repo.commit('plan', {'plan.md': shellPlan(agents, {frontMatter: front})})
    const plan = join(repo.root, 'plan.md')
    const env = {GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'}
    const first = startCli(['run', plan, '--max-attempts', '1'], {cwd: repo.root, env})
    // Killed while jobs run: some completed, some in Slurm.
    await waitForTable(plan, (rows) => Object.values(rows).filter((row) => row.status === 'completed').length >= 3 && Object.values(rows).some((row) => /slurm: \d+/.test(row.notes) && row.status === 'in_progress'), 120_000)
    first.kill('SIGKILL')
    await first
    const second = await runCli(['run', plan, '--max-attempts', '1'], {cwd: repo.root, env})
    expect(second.exitCode, second.all).toBe(0)
    const side = await readAgentLog(log)
    expect(duplicates(side)).toEqual([])
    expect([...side.starts.keys()].sort()).toEqual(dag.map((agent) => `${agent.id}#1`).sort())
    expect(side.unfinished).toEqual([])
    const {rows} = await readTable(plan)
    for (const agent of dag) {
      expect(rows[agent.id]!.status).toBe('completed')
      expect(await repo.read(`out/${agent.id}.txt`)).toBe(`${agent.id}\n`)
    }
    const bodies = await repo.git('log', '--format=%B')
    for (const agent of dag) expect(bodies.match(new RegExp(`Mdplan-Key: mdplan13-plan-[0-9a-f]{8}-${agent.id}-a1-`, 'g'))).toHaveLength(1)
    await repo.cleanup()
  }, 300_000)
})
