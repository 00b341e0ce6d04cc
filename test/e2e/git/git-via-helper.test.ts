import {chmod, mkdtemp, readFile, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {execFileSync} from 'node:child_process'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan} from '../../helpers/run-cli.js'

beforeAll(isolateGitConfig)

const realGit = execFileSync('sh', ['-c', 'command -v git'], {encoding: 'utf8'}).trim()

/**
 * In a git repository a run takes a snapshot at each launch and after each attempt (issue 24). Those git
 * commands are started by the spawn helper, as the agents are, not forked from mdplan's own (large)
 * process; and one `git status` per snapshot names HEAD too, with no `rev-parse` beside it. Counted from
 * git's side: a `git` first on PATH logs its parent and its arguments, then runs the real one.
 */
describe('git during a run', () => {
  it('runs its snapshots from the spawn helper, one status each and no rev-parse', async () => {
    const repo = await tempRepo({'README.md': '# test\n'})
    const bin = await mkdtemp(join(tmpdir(), 'mdplan-gitlog-'))
    const log = join(bin, 'calls.log')
    await writeFile(join(bin, 'git'), `#!/bin/sh\necho "$PPID $*" >> '${log}'\nexec '${realGit}' "$@"\n`)
    await chmod(join(bin, 'git'), 0o755)
    // Each agent logs its job wrapper's parent (an agent runs as a job: its parent is the wrapper): the helper's pid.
    const agent = (id: string) => `echo "$(ps -o ppid= -p $PPID | tr -d ' ') agent" >> '${log}'\necho ${id} > ${id.toLowerCase()}.txt`
    await repo.commit('plan', {'plan.md': shellPlan({A: {script: agent('A'), creates: ['a.txt']}, B: {deps: ['A'], script: agent('B'), creates: ['b.txt']}})})
    const plan = join(repo.root, 'plan.md')
    const result = await runCli(['run', plan], {
      cwd: repo.root,
      env: {PATH: `${bin}:${process.env.PATH}`, GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'}
    })
    expect(result.exitCode, result.all).toBe(0)
    const {rows} = await readTable(plan)
    expect(rows.A!.notes).toMatch(/base: [0-9a-f]{12}/)
    const calls = (await readFile(log, 'utf8')).trim().split('\n').map((line) => {
      const [ppid, ...args] = line.split(' ')
      return {ppid: Number(ppid), args: args.join(' ')}
    })
    const helpers = new Set(calls.filter((call) => call.args === 'agent').map((call) => call.ppid))
    expect(helpers.size).toBe(1)
    const [helper] = helpers
    const statuses = calls.filter((call) => call.args.includes(' status --porcelain=v2'))
    // At least a snapshot at each launch and one after each attempt (some may be shared).
    expect(statuses.length).toBeGreaterThanOrEqual(2)
    for (const call of statuses) expect(call.ppid, call.args).toBe(helper)
    expect(calls.filter((call) => /rev-parse .*HEAD\^\{commit\}/.test(call.args))).toEqual([])
  })
})
