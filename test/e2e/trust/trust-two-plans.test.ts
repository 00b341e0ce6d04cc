import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {planSlug} from '../../../src/layout/worktree-names.js'
import {logFolder} from '../../../src/layout/log-folder.js'
import {isolateGitConfig, tempDir, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {readTable, shellPlan, startCli} from '../../helpers/run-cli.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'

/**
 * Two plans run at once in one repository, each with `commit: true` and worktrees, never share a process
 * registry (the second run's start would end the first run's live agents), a log folder, a run log, a
 * journal, or worktree and branch names. Real processes, real git; launches counted agent-side, one log
 * per plan.
 */
let repo: TempRepo | undefined
beforeAll(isolateGitConfig)
afterEach(async () => {
  await repo?.cleanup()
  repo = undefined
})

async function waitFor(what: string, check: () => boolean): Promise<void> {
  for (let waited = 0; !check(); waited += 50) {
    if (waited > 20_000) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

for (const [first, second] of [
  ['x/plan.md', 'y/plan.md'],
  ['plans/a.md', 'plans/b.md'],
  // Names that differ only in case or punctuation used to share one key (`plan`, `a-b`): the second run's
  // start ended the first run's agent, and both wanted the worktree and branch `mdplan/plan/A`.
  ['Plan.md', 'plan.md'],
  ['a b.md', 'a-b.md']
] as const) {
  describe(`${first} and ${second}, run at once`, () => {
    it('each agent runs once and finishes; logs, run logs, worktrees and branches are their own', async () => {
      repo = await tempRepo()
      // Outside the repository: the agents run in their worktrees, and an untracked file would be in the merge's way.
      const go = join(await tempDir(), 'go')
      const plans = [first, second]
      const logs = plans.map((_, index) => join(repo!.root, `agents-${index}.log`))
      const files: Record<string, string> = {}
      plans.forEach((plan, index) => {
        const body = `while [ ! -f '${go}' ]; do sleep 0.05; done\necho ${index} > out-${index}-$MDPLAN_AGENT.txt`
        files[plan] = shellPlan({A: {script: logged(logs[index]!, body)}}, {frontMatter: 'commit: true\nisolation: worktree'})
      })
      await repo.commit('plans', files)
      // The second starts while the first one's agent runs (a killed run's leftovers are ended at a start).
      const runs = []
      for (const [index, plan] of plans.entries()) {
        runs.push({run: startCli(['run', plan], {cwd: repo.root}), index})
        await waitFor(`A of ${plan}`, () => existsSync(logs[index]!))
      }
      writeFileSync(go, '')
      const results = await Promise.all(runs.map(async ({run}) => await run))
      for (const result of results) expect(result.exitCode, result.all).toBe(0)
      for (const [index, plan] of plans.entries()) {
        const side = await readAgentLog(logs[index]!)
        expect(side.starts, plan).toEqual(new Map([['A#1', 1]]))
        expect(side.unfinished, plan).toEqual([])
        expect((await readTable(join(repo.root, plan))).rows.A!.status).toBe('completed')
      }
      // Logs sit beside each plan, keyed by its name there (two plans of one folder never share one).
      const folders = plans.map((plan) => logFolder(join(repo!.root, plan)))
      expect(new Set(folders).size).toBe(2)
      for (const folder of folders) {
        expect(existsSync(join(folder, 'A.1.log')), folder).toBe(true)
        expect(readFileSync(join(folder, 'run.ndjson'), 'utf8').match(/"type":"launched"/g)?.length, folder).toBe(1)
      }
      // Each plan's agent A committed its own work on its own branch, and both are on main.
      expect((await repo.git('ls-tree', '--name-only', 'main')).split('\n')).toEqual(expect.arrayContaining(['out-0-A.txt', 'out-1-A.txt']))
    }, 90_000)
  })
}

describe('planSlug', () => {
  it('keys a plan by its path from the repository root: same names in two folders differ; a plan at the root keeps its old name', () => {
    expect(planSlug('/repo/plan.md', '/repo')).toBe('plan')
    expect(planSlug('/repo/x/plan.md', '/repo')).toBe('x--plan')
    expect(planSlug('/repo/y/plan.md', '/repo')).toBe('y--plan')
    // `--` only ever separates folders: a root plan named with it cannot take a nested plan's key.
    expect(planSlug('/repo/x--plan.md', '/repo')).toMatch(/^x-plan---[0-9a-f]{8}$/)
    expect(planSlug('/repo/a-b.md', '/repo')).toBe('a-b')
    expect(planSlug('/repo/p.q_r.md', '/repo')).toBe('p.q_r')
  })

  it('is injective: names that differ only in case, punctuation, dashes or extension get a digest of their path; a name that spells itself keeps its old key', () => {
    const paths = ['plan.md', 'Plan.md', 'PLAN.md', 'plan.MD', 'plan.markdown', 'a-b.md', 'a b.md', 'a_b.md', 'a..b.md', 'a--b.md', 'x-plan.md', 'x--plan.md', 'x/plan.md', 'X/plan.md', 'x/Plan.md', 'x y/plan.md', 'x-y/plan.md', 'docs/My Plans/Add Auth.md', 'docs/my-plans/add-auth.md']
    const slugs = paths.map((path) => planSlug(`/repo/${path}`, '/repo'))
    expect(new Set(slugs).size).toBe(paths.length)
    expect(slugs.filter((slug) => !slug.includes('---'))).toEqual(['plan', 'a-b', 'a_b', 'x-plan', 'x--plan', 'x-y--plan', 'docs--my-plans--add-auth'])
    expect(planSlug('/repo/Plan.md', '/repo')).toMatch(/^plan---[0-9a-f]{8}$/)
    expect(planSlug('/repo/docs/My Plans/Add Auth.md', '/repo')).toMatch(/^docs--my-plans--add-auth---[0-9a-f]{8}$/)
    // The same path, the same key, on every run (and on every clone: the digest is of the path below the root).
    expect(planSlug('/repo/Plan.md', '/repo')).toBe(planSlug('/other/Plan.md', '/other'))
    expect(planSlug('plans/add-auth.md')).toBe('add-auth')
  })
})
