import {existsSync} from 'node:fs'
import {readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {readTable, runCli, shellPlan} from '../../helpers/run-cli.js'

beforeAll(isolateGitConfig)

/** A repository holding `plan.md` (committed) and a `src/` folder. */
async function repoWithPlan(text: string) {
  const repo = await tempRepo({'README.md': '# test\n', 'src/shared.ts': 'line 1\nline 2\nline 3\n'})
  await repo.commit('plan', {'plan.md': text})
  return {repo, plan: join(repo.root, 'plan.md')}
}

const env = () => ({GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL!, GIT_CONFIG_NOSYSTEM: '1'})

describe('mdplan run in a git repository', () => {
  it('records the base commit, notes a scope violation, and reports undeclared changes', async () => {
    const {repo, plan} = await repoWithPlan(
      shellPlan({
        A: {script: 'echo a > src/a.ts\necho sneaky > src/c.ts\necho stray > notes.txt', creates: ['src/a.ts']},
        C: {deps: ['A'], script: 'echo c >> src/c.ts', creates: ['src/c.ts']}
      })
    )
    const head = (await repo.git('rev-parse', 'HEAD')).slice(0, 12)
    const result = await runCli(['run', plan], {cwd: repo.root, env: env()})
    expect(result.exitCode, result.all).toBe(0)
    const {rows} = await readTable(plan)
    expect(rows.A!.notes).toContain(`base: ${head}`)
    expect(rows.A!.notes).toContain('scope: touched src/c.ts (owned by C)')
    expect(rows.C!.notes).not.toContain('scope:')
    expect(result.stdout).toContain('notes.txt')
  })

  it('fails a scope violation with --strict-scope', async () => {
    const {repo, plan} = await repoWithPlan(
      shellPlan({
        A: {script: 'echo x > src/c.ts', creates: ['src/a.ts']},
        C: {deps: ['A'], script: 'true', creates: ['src/c.ts']}
      })
    )
    const result = await runCli(['run', plan, '--strict-scope', '--max-attempts', '1'], {cwd: repo.root, env: env()})
    expect(result.exitCode).toBe(1)
    const {rows} = await readTable(plan)
    expect(rows.A!.status).toBe('failed')
    expect(rows.A!.notes).toContain('attempt 1: scope: touched src/c.ts (owned by C)')
  })

  it('commits exactly the files an agent changed with `commit: true`', async () => {
    const {repo, plan} = await repoWithPlan(
      shellPlan({A: {script: 'echo a > src/a.ts', creates: ['src/a.ts']}}, {frontMatter: 'commit: true'})
    )
    await repo.write('unrelated.txt', 'the person is editing this\n')
    const result = await runCli(['run', plan], {cwd: repo.root, env: env()})
    expect(result.exitCode, result.all).toBe(0)
    const {rows} = await readTable(plan)
    const commit = /commit: ([0-9a-f]{12})/.exec(rows.A!.notes)?.[1]
    expect(commit).toBeDefined()
    expect(await repo.git('log', '-1', '--format=%s', commit!)).toBe('test · A: a-step')
    expect((await repo.git('show', '--name-only', '--format=', commit!)).trim()).toBe('src/a.ts')
    expect(await repo.git('status', '--porcelain', '--', 'unrelated.txt')).toContain('?? unrelated.txt')
  })

  it('runs worktree agents apart and merges disjoint work back', async () => {
    const {repo, plan} = await repoWithPlan(
      shellPlan(
        {
          A: {script: 'echo a > src/a.ts', creates: ['src/a.ts']},
          B: {script: 'echo b > src/b.ts', creates: ['src/b.ts']}
        },
        {frontMatter: 'isolation: worktree'}
      )
    )
    const result = await runCli(['run', plan], {cwd: repo.root, env: env()})
    expect(result.exitCode, result.all).toBe(0)
    expect(await readFile(join(repo.root, 'src/a.ts'), 'utf8')).toBe('a\n')
    expect(await readFile(join(repo.root, 'src/b.ts'), 'utf8')).toBe('b\n')
    expect(await repo.git('log', '--format=%s')).toContain('test · A: a-step')
    expect(existsSync(join(repo.root, '.mdplan', 'worktrees', 'plan', 'A'))).toBe(false)
  })

  it('fails the second of two worktree agents changing the same lines, naming the paths', async () => {
    // B, in its own worktree, ends only once A's work is merged into the main tree (beside the plan), so A is
    // always the first: a fixed 0.5 s in B raced A's start and merge on a loaded machine. Up to 10 s.
    const {repo, plan} = await repoWithPlan(
      shellPlan(
        {
          A: {script: 'printf "line 1\\nA was here\\nline 3\\n" > src/shared.ts', creates: ['src/x.ts']},
          B: {script: 'i=0; while ! grep -q "A was here" "$(dirname "$MDPLAN_PLAN")/src/shared.ts" && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done\nprintf "line 1\\nB was here\\nline 3\\n" > src/shared.ts', creates: ['src/y.ts']}
        },
        {frontMatter: 'isolation: worktree\nmax_attempts: 1'}
      )
    )
    const result = await runCli(['run', plan], {cwd: repo.root, env: env()})
    expect(result.exitCode).toBe(1)
    const {rows} = await readTable(plan)
    expect(rows.A!.status).toBe('completed')
    expect(rows.B!.status).toBe('failed')
    expect(rows.B!.notes).toContain('merge conflict in src/shared.ts')
    expect(await readFile(join(repo.root, 'src/shared.ts'), 'utf8')).toContain('A was here')
    expect(await repo.git('status', '--porcelain', '--untracked-files=no', '--', 'src')).toBe('')
  })

  it('says which of its files changed since its base before resuming an agent', async () => {
    const {repo, plan} = await repoWithPlan(shellPlan({A: {script: 'echo a >> src/shared.ts', creates: ['src/shared.ts']}}))
    const base = (await repo.git('rev-parse', 'HEAD')).slice(0, 12)
    await repo.commit('someone else', {'src/shared.ts': 'changed under A\n'})
    const text = (await readFile(plan, 'utf8')).replace('| A | pending | — | — | |', `| A | in_progress | sh-0000000a | — | base: ${base} |`)
    await writeFile(plan, text)
    const result = await runCli(['run', plan], {cwd: repo.root, env: env()})
    expect(result.exitCode, result.all).toBe(0)
    expect(result.stdout).toMatch(/A[^\n]*src\/shared\.ts/)
  })

  it('says once that it skips git outside a repository', async () => {
    const {setupPlan} = await import('../../helpers/run-cli.js')
    const {dir, plan} = await setupPlan({text: shellPlan({A: {script: 'true'}})})
    const result = await runCli(['run', plan], {cwd: dir})
    expect(result.exitCode).toBe(0)
    expect(result.stdout.match(/not a git repository/g)).toHaveLength(1)
  })
})
