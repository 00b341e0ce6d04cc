import {existsSync, readdirSync} from 'node:fs'
import {mkdtemp, readFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {random} from '../../../bench/random.js'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, root, runCli, shellPlan, startCli} from '../../helpers/run-cli.js'
import {logged, randomDag, readAgentLog} from '../../helpers/agent-log.js'

/**
 * Local agents are jobs: a coordinator SIGKILLed at a random moment (a closed lid, the OOM killer) leaves its
 * agents running, and the next run attaches to the ones still running and collects the ones that ended. Here
 * the coordinator dies 30 times in all, at seeded random moments, each death followed by a rerun (which may die
 * too), in real git repositories, with shell agents and with a fake claude that keeps sessions. Counted from the
 * agents' side: every agent starts once and ends once, and all work is on main, committed (`commit: true`) or
 * merged from its worktree.
 */

beforeAll(isolateGitConfig)

const gitEnv = () => ({GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'})
const fakeClaude = join(root, 'fixtures', 'agents', 'claude')

interface Case {
  runner: 'shell' | 'claude'
  front: string
  kills: number
  seed: number
}

const cases: Case[] = [
  {runner: 'shell', front: 'commit: true', kills: 8, seed: 11},
  {runner: 'shell', front: 'isolation: worktree', kills: 7, seed: 12},
  {runner: 'claude', front: 'commit: true', kills: 8, seed: 13},
  {runner: 'claude', front: 'isolation: worktree', kills: 7, seed: 14}
]

/** An 8-agent DAG whose agents each write `out/<id>.txt`, logging their start and end on the agents' side. */
function planText(c: Case, log: string): {text: string; ids: string[]} {
  const dag = randomDag(8, c.seed, 200, 700)
  const agents = Object.fromEntries(
    dag.map((agent) => [
      agent.id,
      {
        deps: agent.deps,
        creates: [`out/${agent.id}.txt`],
        script:
          c.runner === 'shell'
            ? logged(log, `sleep ${(agent.ms / 1000).toFixed(3)}\nmkdir -p out\necho ${agent.id} > out/${agent.id}.txt`)
            : `Write the file below.\nWORK: out/${agent.id}.txt`
      }
    ])
  )
  const text = shellPlan(agents, {frontMatter: ['concurrency: 3', c.front].join('\n')}).replace('runner: shell', `runner: ${c.runner}`)
  return {text, ids: dag.map((agent) => agent.id)}
}

/** Starts and ends per agent, from the agents' own log (shell: `start ID ATTEMPT`; the fake claude: `start out/ID.txt`). */
async function agentSide(c: Case, log: string): Promise<{starts: Map<string, number>; unfinished: string[]; lines: string[]}> {
  if (c.runner === 'shell') {
    const side = await readAgentLog(log)
    const starts = new Map<string, number>()
    for (const [key, count] of side.starts) starts.set(key.split('#')[0]!, (starts.get(key.split('#')[0]!) ?? 0) + count)
    return {starts, unfinished: side.unfinished, lines: side.lines}
  }
  const lines = existsSync(log) ? (await readFile(log, 'utf8')).split('\n').filter(Boolean) : []
  const starts = new Map<string, number>()
  const open = new Set<string>()
  for (const line of lines) {
    const [what, file] = line.split(' ')
    const id = /out\/(\w+)\.txt/.exec(file ?? '')?.[1] ?? ''
    if (what === 'start') {
      starts.set(id, (starts.get(id) ?? 0) + 1)
      open.add(id)
    } else open.delete(id)
  }
  return {starts, unfinished: [...open], lines}
}

describe('local agents whose coordinator is SIGKILLed at random moments (git repository)', () => {
  for (const c of cases) {
    it(`${c.runner}, ${c.front}: ${c.kills} kills, each followed by a rerun; every agent started and ended once, all work on main`, async () => {
      const log = join(await mkdtemp(join(tmpdir(), 'mdplan-kill-log-')), 'agents.log')
      const {text, ids} = planText(c, log)
      const repo = await tempRepo()
      await repo.commit('plan', {'plan.md': text})
      const plan = join(repo.root, 'plan.md')
      const env = {...gitEnv(), MDPLAN_CLAUDE_BIN: fakeClaude, FAKE_WORK: log, FAKE_DELAY_MS: '400', FAKE_STATE_DIR: join(repo.root, '..', `${c.seed}-sessions`)}
      const rand = random(c.seed)
      const deaths: string[] = []
      for (let kill = 0; kill < c.kills; kill++) {
        const run = startCli(['run', plan, '--json'], {cwd: repo.root, env})
        // A random moment once this run is under way: after its first launch (or re-attach), so the kill lands
        // while agents run, between launches, or in a commit, and never merely during the start of Node.
        let heard = ''
        const launched = new Promise<void>((resolve) => {
          run.stdout?.on('data', (chunk: Buffer) => {
            heard += String(chunk)
            if (heard.includes('"type":"launched"')) resolve()
          })
          void run.then(() => resolve())
        })
        await launched
        const after = Math.round(rand() * 1200)
        await new Promise((resolve) => setTimeout(resolve, after))
        run.kill('SIGKILL')
        const ended = await run
        deaths.push(`kill ${kill + 1}, ${after} ms after the first launch: ${ended.signal ?? `exit ${ended.exitCode}`}`)
      }
      const last = await runCli(['run', plan, '--json'], {cwd: repo.root, env})
      const side = await agentSide(c, log)
      const story = [...deaths, ...side.lines].join('\n')
      expect(last.exitCode, `${last.all}\n${story}`).toBe(0)
      const {rows} = await readTable(plan)
      expect(Object.entries(rows).filter(([, row]) => row.status !== 'completed'), story).toEqual([])
      // Counted from the agents' side: one start and one end each, across every run.
      expect(Object.fromEntries(ids.map((id) => [id, side.starts.get(id) ?? 0])), story).toEqual(Object.fromEntries(ids.map((id) => [id, 1])))
      expect(side.unfinished, story).toEqual([])
      // All work on main, committed or merged; nothing of it left out of HEAD.
      const tracked = (await repo.git('ls-tree', '-r', '--name-only', 'HEAD', 'out')).split('\n').filter(Boolean).sort()
      expect(tracked, story).toEqual(ids.map((id) => `out/${id}.txt`).sort())
      expect((await repo.git('status', '--porcelain', '--', 'out')).trim(), story).toBe('')
      for (const id of ids) expect(await repo.read(`out/${id}.txt`)).toBe(c.runner === 'shell' ? `${id}\n` : `out/${id}.txt\n`)
      // Nothing left behind: every job's folder is gone once its row says how it ended.
      const jobs = join(repo.root, '.mdplan', 'local-jobs')
      expect(existsSync(jobs) ? readdirSync(jobs) : []).toEqual([])
      await repo.cleanup()
    }, 240_000)
  }
})
