import {existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {loadPlan} from '../../../src/plan/load-plan.js'
import {allSpans, projectPlan} from '../../helpers/plan-project.js'

const root = fileURLToPath(new URL('../../../fixtures/parse/', import.meta.url))
const cases = readdirSync(root).sort()

describe('parsePlan golden fixtures (fixtures/parse/<case>/plan.md → expected.json; UPDATE=1 rewrites)', () => {
  it('has fixtures', () => {
    expect(cases.length).toBeGreaterThan(5)
  })

  for (const name of cases) {
    it(name, async () => {
      const dir = join(root, name)
      const plan = await loadPlan('plan.md', {cwd: dir})
      const actual = JSON.stringify(projectPlan(plan), null, 2) + '\n'
      const expectedFile = join(dir, 'expected.json')
      if (process.env.UPDATE || !existsSync(expectedFile)) writeFileSync(expectedFile, actual)
      expect(actual).toBe(readFileSync(expectedFile, 'utf8'))
    })

    it(`${name}: every position's offset matches its line and column`, async () => {
      const dir = join(root, name)
      const plan = await loadPlan('plan.md', {cwd: dir})
      const files: Record<string, string> = {'plan.md': plan.text}
      if (plan.promptsFile) files[plan.promptsFile.path] = readFileSync(join(dir, plan.promptsFile.path), 'utf8').replace(/^\uFEFF/, '')
      const lineStarts = (text: string) => [0, ...[...text.matchAll(/\n/g)].map((m) => m.index! + 1)]
      const spans = allSpans(plan, plan.file)
      expect(spans.length).toBeGreaterThan(3)
      for (const {path, file, span} of spans) {
        const text = files[file]!
        const starts = lineStarts(text)
        for (const point of [span.start, span.end]) {
          expect(starts[point.line - 1]! + point.column - 1, `${name} ${path}`).toBe(point.offset)
          expect(point.offset).toBeLessThanOrEqual(text.length)
        }
      }
    })
  }
})
