import fs from 'node:fs'
import path from 'node:path'
import {execa} from 'execa'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo, type TempRepo} from '../../helpers/git-repo.js'
import {forEachShapes, shortName} from '../../helpers/real-plans.js'
import {bin, shellPlan} from '../../helpers/run-cli.js'

let repos: TempRepo[] = []
beforeAll(isolateGitConfig)
afterEach(async () => {
  await Promise.all(repos.map((repo) => repo.cleanup()))
  repos = []
})

const init = (repo: TempRepo) => execa(process.execPath, [bin, 'init', '--git', '--dir', repo.root], {cwd: repo.root, reject: false})

/** `path → merge attribute` as git sees it. */
async function mergeAttribute(repo: TempRepo, paths: string[]): Promise<Record<string, string>> {
  const out = await repo.git('check-attr', '-z', 'merge', '--', ...paths)
  const fields = out.split('\0')
  const result: Record<string, string> = {}
  for (let i = 0; i + 2 < fields.length; i += 3) result[fields[i]!] = fields[i + 2]!
  return result
}

forEachShapes((shapes) => {
  const real = (name: string) => fs.readFileSync(path.join(shapes.dir, name), 'utf8')

  describe('mdplan init --git with no pattern finds the plans tracked in the repository', () => {
    it('covers a folder of plans by pattern and a plan among other pages by its path, says which, and no other page', async () => {
      const [first, second] = [shortName(shapes.finished), shortName(shapes.noDuration)].sort()
      const repo = await tempRepo({
        'README.md': '# project\n',
        'docs/guide.md': '# guide\n\n## Agents\n\nnot a plan: no state table\n',
        [`docs/plans/${first}`]: real(shapes.finished),
        [`docs/plans/${second}`]: real(shapes.noDuration),
        'my plan.md': shellPlan({A: {script: 'true'}})
      })
      repos.push(repo)
      const result = await init(repo)
      expect(result.exitCode, result.stderr).toBe(0)
      expect(result.stdout).toContain(`plans found: docs/plans/${first}, docs/plans/${second}, my plan.md\n`)
      expect(result.stdout).toContain('.gitattributes: created (docs/plans/*.md merge=mdplan, "/my plan.md" merge=mdplan)')
      expect(await repo.read('.gitattributes')).toBe('docs/plans/*.md merge=mdplan\n"/my plan.md" merge=mdplan\n')
      expect(await mergeAttribute(repo, [`docs/plans/${first}`, `docs/plans/${second}`, 'my plan.md', 'README.md', 'docs/guide.md'])).toEqual({
        [`docs/plans/${first}`]: 'mdplan',
        [`docs/plans/${second}`]: 'mdplan',
        'my plan.md': 'mdplan',
        'README.md': 'unspecified',
        'docs/guide.md': 'unspecified'
      })
      const again = await init(repo)
      expect(again.stdout).toContain('.gitattributes: unchanged (every plan found already has a merge driver)')
      expect(await repo.read('.gitattributes')).toBe('docs/plans/*.md merge=mdplan\n"/my plan.md" merge=mdplan\n')
    })

    it('a plan whose folder holds other pages is covered by its own path, glob characters escaped', async () => {
      const repo = await tempRepo({'docs/[draft] plan.md': real(shapes.finished), 'docs/index.md': '# docs\n'})
      repos.push(repo)
      const result = await init(repo)
      expect(result.stdout).toContain('plans found: docs/[draft] plan.md\n')
      expect(await mergeAttribute(repo, ['docs/[draft] plan.md', 'docs/index.md', 'docs/d plan.md'])).toEqual({'docs/[draft] plan.md': 'mdplan', 'docs/index.md': 'unspecified', 'docs/d plan.md': 'unspecified'})
    })

    it('an explicit pattern is used as given, with no search', async () => {
      const repo = await tempRepo({'docs/plans/a.md': real(shapes.finished)})
      repos.push(repo)
      const result = await execa(process.execPath, [bin, 'init', '--git', 'work/*.md', '--dir', repo.root], {cwd: repo.root})
      expect(result.stdout).not.toContain('plans found')
      expect(await repo.read('.gitattributes')).toBe('work/*.md merge=mdplan\n')
      expect(fs.existsSync(path.join(repo.root, '.gitattributes'))).toBe(true)
    })
  })
})

describe('mdplan init --git in a repository with no plan', () => {
  it('with no plan tracked it covers plans/*.md and says so', async () => {
    const repo = await tempRepo()
    repos.push(repo)
    const result = await init(repo)
    expect(result.stdout).toContain('plans found: none tracked (no Markdown file with `## Agents` and `## Execution State`): covering plans/*.md')
    expect(await repo.read('.gitattributes')).toBe('plans/*.md merge=mdplan\n')
  })
})
