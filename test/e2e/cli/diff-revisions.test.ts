import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {execa} from 'execa'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'

const root = fileURLToPath(new URL('../../..', import.meta.url))
const before = fs.readFileSync(path.join(root, 'fixtures/diff/basic/before.md'), 'utf8')
const bin = path.join(root, 'bin/mdplan.js')
const mdplan = (cwd: string, ...args: string[]) => execa(process.execPath, [bin, ...args], {cwd, reject: false})

let repos: TempRepo[] = []
beforeAll(isolateGitConfig)
afterEach(async () => {
  await Promise.all(repos.map((repo) => repo.cleanup()))
  repos = []
})

const setRow = (text: string, agent: string, row: string): string => text.replace(new RegExp(`^\\| ${agent} \\|[^\\n]*$`, 'm'), row)

describe('mdplan diff: what a person types is a revision, never a git option', () => {
  it.each([
    [['--', '--output=X']],
    [['--', '--exec=touch X']],
    [['--', '-oX']]
  ])('diff PLAN %j writes no file and exits 2 with one line', async (args) => {
    const repo = await tempRepo({'plans/plan.md': before})
    repos.push(repo)
    // `git show --output=X:./plan.md` writes `plans/X:./plan.md` when that folder exists (an empty folder: git status stays clean).
    fs.mkdirSync(path.join(repo.root, 'plans/X:.'))
    const result = await mdplan(repo.root, 'diff', 'plans/plan.md', ...args)
    expect(result.exitCode).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr.split('\n')).toHaveLength(1)
    expect(result.stderr).toMatch(/^mdplan diff: plans\/plan\.md at -.*: unknown revision/)
    expect(await repo.git('status', '--porcelain', '--untracked-files=all')).toBe('')
    expect(fs.readdirSync(path.join(repo.root, 'plans/X:.'))).toEqual([])
    expect(fs.existsSync(path.join(repo.root, 'X'))).toBe(false)
  })

  it('an option-looking revision without `--` is a usage error, exit 2, no file', async () => {
    const repo = await tempRepo({'plans/plan.md': before})
    repos.push(repo)
    const result = await mdplan(repo.root, 'diff', 'plans/plan.md', '--output=X')
    expect(result.exitCode).toBe(2)
    expect(await repo.git('status', '--porcelain', '--untracked-files=all')).toBe('')
  })
})

describe('mdplan diff against a branch that moved on', () => {
  /** main: base, then B and C progress; feature (from base): A completed. HEAD on feature. */
  async function branches(): Promise<{repo: TempRepo; base: string}> {
    const repo = await tempRepo({'plans/plan.md': before})
    repos.push(repo)
    const base = (await repo.git('rev-parse', 'HEAD')).trim()
    await repo.git('checkout', '--quiet', '-b', 'feature')
    await repo.commit('A ran', {'plans/plan.md': setRow(before, 'A', '| A | completed | sh-1 | 12s | result: <b>bold</b> & <img src=x> |')})
    await repo.git('checkout', '--quiet', 'main')
    let moved = setRow(before, 'B', '| B | completed | sh-2 | 4m 12s | |')
    moved = setRow(moved, 'C', '| C | failed | sh-3 | 40s | attempt 1: x |')
    await repo.commit('main moved on', {'plans/plan.md': moved})
    await repo.git('checkout', '--quiet', 'feature')
    return {repo, base}
  }

  it('compares with the merge base by default and says so; --tip compares with the tip', async () => {
    const {repo, base} = await branches()
    const result = await mdplan(repo.root, 'diff', 'plans/plan.md', 'main')
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout.split('\n')[0]).toBe(`plans/plan.md since merge base ${base.slice(0, 7)} of main: 1 agent changed (1 completed)`)
    expect(result.stdout).not.toMatch(/^[BC] /m)

    const markdown = await mdplan(repo.root, 'diff', 'plans/plan.md', 'main', '--markdown')
    expect(markdown.stdout.split('\n')[0]).toBe(`### mdplan: \`plans/plan.md\` since merge base \`${base.slice(0, 7)}\` of \`main\``)

    const json = JSON.parse((await mdplan(repo.root, 'diff', 'plans/plan.md', 'main', '--json')).stdout)
    expect(json).toMatchObject({rev: 'main', commit: base, mergeBase: base})

    const tip = await mdplan(repo.root, 'diff', 'plans/plan.md', 'main', '--tip')
    expect(tip.stdout.split('\n')[0]).toMatch(/^plans\/plan\.md since main: 3 agents changed/)
    expect(tip.stdout).toMatch(/^B +completed → pending/m)
  })

  it('an ancestor (HEAD~1, the default HEAD) is compared as it is, with no merge-base line', async () => {
    const {repo} = await branches()
    const result = await mdplan(repo.root, 'diff', 'plans/plan.md', 'HEAD~1')
    expect(result.stdout.split('\n')[0]).toBe('plans/plan.md since HEAD~1: 1 agent changed (1 completed)')
  })

  it('--markdown escapes HTML in notes, so a comment shows them as written', async () => {
    const {repo} = await branches()
    const result = await mdplan(repo.root, 'diff', 'plans/plan.md', 'main', '--markdown')
    expect(result.stdout).toContain('| result: &lt;b&gt;bold&lt;/b&gt; &amp; &lt;img src=x&gt; |')
    expect(result.stdout).not.toMatch(/<b>|<img/)
  })
})
