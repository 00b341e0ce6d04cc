import {chmod, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan} from '../../helpers/run-cli.js'

/**
 * mdplan's own commit or merge of one agent's work, landing while another agent launches, is not that
 * agent's doing: X and W end together, mdplan commits (or merges) X's file while Y, which waits on W
 * alone, launches; Y writes only its own file and must get no scope note, and under --strict-scope must
 * not fail. A slow pre-commit hook (a linter) makes the commit last, as real hooks do.
 */
let repo: TempRepo | undefined
beforeAll(isolateGitConfig)
afterEach(async () => {
  await repo?.cleanup()
  repo = undefined
})

async function race(xField: string): Promise<{exitCode: number | undefined; all: string; rows: Awaited<ReturnType<typeof readTable>>['rows']; log: string}> {
  repo = await tempRepo({'README.md': '# test\n'})
  const log = join(repo.root, '..', `${repo.root.split('/').pop()}-agents.log`)
  const plan = shellPlan(
    {
      X: {creates: ['x.txt'], script: logged(log, 'sleep 1; echo x > x.txt')},
      W: {creates: ['w.txt'], script: logged(log, 'sleep 1; echo w > w.txt')},
      Y: {deps: ['W'], creates: ['y.txt'], script: logged(log, 'sleep 1.5; echo y > y.txt')}
    },
    {frontMatter: 'max_attempts: 1'}
  ).replace('### X: x-step\n', `### X: x-step\n${xField}\n`)
  await writeFile(join(repo.root, 'plan.md'), plan)
  const hook = join(repo.root, '.git', 'hooks', 'pre-commit')
  await writeFile(hook, '#!/bin/sh\nsleep 1\n')
  await chmod(hook, 0o755)
  await repo.git('add', 'plan.md')
  await repo.git('commit', '-q', '--no-verify', '-m', 'plan')
  const result = await runCli(['run', 'plan.md', '--strict-scope'], {cwd: repo.root})
  return {exitCode: result.exitCode, all: result.all ?? '', rows: (await readTable(join(repo.root, 'plan.md'))).rows, log}
}

describe("mdplan's own commits and merges are not blamed on an agent launched meanwhile", () => {
  for (const [how, field] of [
    ['commit: true', '- **commit**: true'],
    ['isolation: worktree', '- **isolation**: worktree']
  ] as const) {
    it(`${how}: X's file lands while Y launches; Y completes with no scope note, each agent once, X's work on HEAD`, async () => {
      const {exitCode, all, rows, log} = await race(field)
      expect(exitCode, all).toBe(0)
      for (const id of ['X', 'W', 'Y']) expect(rows[id]!.status, `${id}: ${rows[id]!.notes}`).toBe('completed')
      expect(rows.Y!.notes).not.toMatch(/scope/)
      expect((await readAgentLog(log)).starts).toEqual(new Map([['X#1', 1], ['W#1', 1], ['Y#1', 1]]))
      expect((await repo!.git('show', 'HEAD:x.txt')).trim()).toBe('x')
    }, 60_000)
  }
})
