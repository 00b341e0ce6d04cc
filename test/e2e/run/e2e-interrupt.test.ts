import {existsSync} from 'node:fs'
import {mkdtemp} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {execa} from 'execa'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {bin, readTable, runCli, shellPlan, startCli, waitForTable} from '../../helpers/run-cli.js'
import {duplicates, logged, randomDag, readAgentLog, readEvents} from '../../helpers/agent-log.js'

beforeAll(isolateGitConfig)

const gitEnv = () => ({GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'})

async function logFile(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), 'mdplan-e2e-log-')), 'agents.log')
}

/** A 12-agent random DAG of short sleeps that log their launches; `failing` exits 1. */
async function dagRepo(log: string, options: {failing?: string; front?: string} = {}) {
  const dag = randomDag(12, 7, 150, 400)
  const agents = Object.fromEntries(
    dag.map((agent) => [
      agent.id,
      {
        deps: agent.deps,
        creates: [`out/${agent.id}.txt`],
        script: logged(log, `sleep ${(agent.ms / 1000).toFixed(3)}\nmkdir -p out\necho ${agent.id} > out/${agent.id}.txt`) + (agent.id === options.failing ? '\nexit 1' : '')
      }
    ])
  )
  const repo = await tempRepo()
  await repo.commit('plan', {'plan.md': shellPlan(agents, {frontMatter: ['concurrency: 3', options.front].filter(Boolean).join('\n')})})
  return {repo, dag, plan: join(repo.root, 'plan.md')}
}

describe('a run whose output closes or whose process dies (git repository)', () => {
  for (const failing of [undefined, 'T5']) {
    it(`\`mdplan run plan.md --json | head -1\` still finishes every agent, records it, releases the lock, exits ${failing ? '1 (an agent failed)' : '0'}`, async () => {
      const log = await logFile()
      const {repo, dag, plan} = await dagRepo(log, {failing})
      const script = `set -o pipefail; "${process.execPath}" "${bin}" run plan.md --json --max-attempts 1 | head -1; echo "codes \${PIPESTATUS[*]}" >&2`
      const result = await execa('bash', ['-c', script], {cwd: repo.root, env: {...gitEnv(), NO_COLOR: '1'}, reject: false})
      const codes = /codes (\d+) (\d+)/.exec(result.stderr)
      expect(codes, result.stderr).not.toBeNull()
      expect(JSON.parse(result.stdout.trim()).type).toBe('run-started')
      const {rows} = await readTable(plan)
      const side = await readAgentLog(log)
      expect(duplicates(side), side.lines.join('\n')).toEqual([])
      expect(side.unfinished).toEqual([])
      expect(side.peak).toBeLessThanOrEqual(3)
      expect(existsSync(`${plan}.lock`)).toBe(false)
      if (failing) {
        expect(Number(codes![1]), result.stderr).toBe(1)
        expect(rows[failing]!.status).toBe('failed')
        expect(Object.values(rows).some((row) => row.status === 'in_progress')).toBe(false)
      } else {
        expect(Number(codes![1]), result.stderr).toBe(0)
        expect(Object.entries(rows).filter(([, row]) => row.status !== 'completed')).toEqual([])
        expect([...side.starts.keys()].sort()).toEqual(dag.map((agent) => `${agent.id}#1`).sort())
      }
      const validate = await runCli(['validate', plan], {cwd: repo.root})
      expect(validate.exitCode, validate.all).toBe(0)
      await repo.cleanup()
    }, 60_000)
  }

  for (const front of [undefined, 'commit: true']) {
    it(`SIGKILL of mdplan mid-run, then a rerun: no completed agent runs again, interrupted ones resume${front ? ` (${front})` : ''}`, async () => {
      const log = await logFile()
      const {repo, dag, plan} = await dagRepo(log, {front})
      const first = startCli(['run', plan, '--json'], {cwd: repo.root, env: gitEnv()})
      await waitForTable(plan, (rows) => Object.values(rows).filter((row) => row.status === 'completed').length >= 3, 20_000)
      first.kill('SIGKILL')
      await first
      const killed = await readTable(plan)
      const doneBefore = Object.entries(killed.rows)
        .filter(([, row]) => row.status === 'completed')
        .map(([id]) => id)
      // The killed run's agents are jobs of their own: they run on without it, and the rerun attaches to the ones
      // still running and collects the ones that ended, instead of starting either again.
      const inProgress = Object.entries(killed.rows).filter(([, row]) => row.status === 'in_progress').map(([id]) => id)
      const linesBefore = (await readAgentLog(log)).lines.filter((line) => line.startsWith('start')).length

      const second = await runCli(['run', plan, '--json'], {cwd: repo.root, env: gitEnv()})
      expect(second.exitCode, second.all).toBe(0)
      const {rows} = await readTable(plan)
      expect(Object.entries(rows).filter(([, row]) => row.status !== 'completed')).toEqual([])
      // Counted from the agents' side, over both runs: every agent started once, as attempt 1, and ended.
      const whole = await readAgentLog(log)
      expect(duplicates(whole), whole.lines.join('\n')).toEqual([])
      expect([...whole.starts.keys()].sort(), whole.lines.join('\n')).toEqual(dag.map((agent) => `${agent.id}#1`).sort())
      expect(whole.unfinished).toEqual([])
      expect(whole.peak).toBeLessThanOrEqual(3)
      const rerun = await readAgentLog(log, 0)
      const startedLater = rerun.lines.filter((line) => line.startsWith('start')).slice(linesBefore).map((line) => line.split(' ')[1]!)
      // A completed agent never starts again; one in progress at the kill starts in the rerun only if the kill came
      // between its row's write and its start (the rerun starts it under the key its row names).
      expect(startedLater.filter((id) => doneBefore.includes(id)), rerun.lines.join('\n')).toEqual([])
      const started = startedLater
      const events = readEvents(second.stdout)
      expect([...events.launched.values()].every((count) => count === 1)).toBe(true)
      expect(events.peak).toBeLessThanOrEqual(3)
      // Every agent neither completed nor in progress at the kill started in the rerun.
      for (const agent of dag) if (!doneBefore.includes(agent.id) && !inProgress.includes(agent.id)) expect(started).toContain(agent.id)
      for (const agent of dag) expect(await repo.read(`out/${agent.id}.txt`)).toBe(`${agent.id}\n`)
      if (front === 'commit: true') {
        // Every agent's file is committed (by the agent's commit, or a resumed attempt's).
        expect((await repo.git('status', '--porcelain', '--', 'out')).trim()).toBe('')
      }
      const validate = await runCli(['validate', plan], {cwd: repo.root})
      expect(validate.exitCode, validate.all).toBe(0)
      await repo.cleanup()
    }, 60_000)
  }
})
