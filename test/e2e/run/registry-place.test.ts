import {existsSync, readFileSync} from 'node:fs'
import {mkdir, mkdtemp, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {execa} from 'execa'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan, startCli} from '../../helpers/run-cli.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'

beforeAll(isolateGitConfig)

const gitEnv = () => ({GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'})
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Agent A's script: it holds a lock on its own file while it runs, so a second A beside it writes `overlap A`. */
function slowAgent(log: string, seconds: number): string {
  return `exec 9>>'${log}.A.flock'\nflock -n 9 || echo "overlap A" >> '${log}'\n${logged(log, `sleep ${seconds}`)}`
}

async function waitFor(predicate: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await sleep(20)
  }
}

const text = (file: string): string => (existsSync(file) ? readFileSync(file, 'utf8') : '')

/** A repository whose plan `path` has one slow agent A, and a folder `sub/` beside it. */
async function placeRepo(path: string) {
  const log = join(await mkdtemp(join(tmpdir(), 'mdplan-place-log-')), 'agents.log')
  const repo = await tempRepo()
  await repo.commit('plan', {[path]: shellPlan({A: {script: slowAgent(log, 4)}}), 'sub/keep': 'x\n', 'docs/keep': 'x\n'})
  return {repo, log}
}

/** Finished, A completed, and never two A's at once; `starts` counts A's starts (a rerun that re-attaches: 1). */
async function expectAlone(plan: string, log: string, second: {exitCode?: number; all?: string}, starts: number, says: string): Promise<void> {
  expect(second.exitCode, second.all).toBe(0)
  expect((await readTable(plan)).rows.A!.status).toBe('completed')
  await sleep(300)
  const side = await readAgentLog(log)
  expect(text(log).split('\n').filter((line) => line.startsWith('overlap')), side.lines.join('\n')).toEqual([])
  expect(side.starts.get('A#1'), side.lines.join('\n')).toBe(starts)
  expect(second.all).toContain(says)
}

describe('the process registry belongs to the plan, not to the folder a run starts in (git repository)', () => {
  const cases = [
    {name: '`mdplan run plan.md`, SIGKILL, then `cd sub && mdplan run ../plan.md`', plan: 'plan.md', first: ['.', 'plan.md'], second: ['sub', '../plan.md']},
    {name: '`mdplan run docs/plan.md`, SIGKILL, then `cd docs && mdplan run plan.md`', plan: 'docs/plan.md', first: ['.', 'docs/plan.md'], second: ['docs', 'plan.md']},
    {name: '`cd sub && mdplan run ../plan.md`, SIGKILL, then `mdplan run plan.md` from the top', plan: 'plan.md', first: ['sub', '../plan.md'], second: ['.', 'plan.md']}
  ]
  for (const {name, plan: path, first: [firstDir, ...firstArgs], second: [secondDir, ...secondArgs]} of cases) {
    it(`${name}: the rerun finds the killed run's job beside the plan and re-attaches to it`, async () => {
      const {repo, log} = await placeRepo(path)
      const first = startCli(['run', ...firstArgs], {cwd: join(repo.root, firstDir!), env: gitEnv()})
      await waitFor(() => text(log).includes('start A'))
      first.kill('SIGKILL')
      await first
      const second = await runCli(['run', ...secondArgs], {cwd: join(repo.root, secondDir!), env: gitEnv()})
      await expectAlone(join(repo.root, path), log, second, 1, 'launched A (attempt 1, resumed)')
      await repo.cleanup()
    }, 60_000)
  }

  it('finds a registry an older version left under the folder its run started in (`.mdplan/run/plan.agents`)', async () => {
    const {repo, log} = await placeRepo('plan.md')
    const plan = join(repo.root, 'plan.md')
    // What an older version's SIGKILLed run leaves: A's row in_progress, A running in its own process group
    // with the variables mdplan gives a shell agent (MDPLAN_PLAN: its plan), and the registry under the run's
    // folder, named by the plan's key (a file other plans' keys could name too: see registry-legacy.test.ts).
    const orphan = execa('sh', ['-c', slowAgent(log, 4)], {cwd: repo.root, env: {MDPLAN_PLAN: plan, MDPLAN_AGENT: 'A', MDPLAN_ATTEMPT: '1'}, detached: true, reject: false})
    await waitFor(() => text(log).includes('start A'))
    const stat = readFileSync(`/proc/${orphan.pid}/stat`, 'utf8')
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
    await mkdir(join(repo.root, '.mdplan', 'run'), {recursive: true})
    await writeFile(join(repo.root, '.mdplan', 'run', 'plan.agents'), `+${orphan.pid} ${start}\n`)
    await writeFile(plan, text(plan).replace('| A | pending |', '| A | in_progress |'))
    const second = await runCli(['run', 'plan.md'], {cwd: repo.root, env: gitEnv()})
    await orphan
    await expectAlone(plan, log, second, 2, 'ended 1 agent process group a killed run left running')
    await repo.cleanup()
  }, 60_000)
})
