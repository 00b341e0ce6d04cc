import {existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {registerValidate} from '../../../src/cli/commands/validate.js'
import {runCommand} from '../../helpers/plan-cli-harness.js'

const root = fileURLToPath(new URL('../../../fixtures/validate/', import.meta.url))
const cases = readdirSync(root).sort()

describe('mdplan validate golden fixtures (fixtures/validate/<rule>/plan.md → expected.txt; UPDATE=1 rewrites)', () => {
  for (const name of cases) {
    it(name, async () => {
      const dir = join(root, name)
      const planFile = join(dir, 'plan.md')
      const before = existsSync(planFile) && !name.startsWith('not-a-file') ? readFileSync(planFile) : undefined
      const result = await runCommand(registerValidate, ['validate', 'plan.md'], dir)
      const actual = `$ mdplan validate plan.md\n${result.all}exit ${result.code}\n`
      const expectedFile = join(dir, 'expected.txt')
      if (process.env.UPDATE || !existsSync(expectedFile)) writeFileSync(expectedFile, actual)
      expect(actual).toBe(readFileSync(expectedFile, 'utf8'))
      // A problem never changes the file.
      if (before) expect(readFileSync(planFile).equals(before)).toBe(true)
    })
  }

  it('names each rule it is about (a failing fixture per rule)', () => {
    const rules = new Set<string>()
    for (const name of cases) {
      const text = readFileSync(join(root, name, 'expected.txt'), 'utf8')
      for (const match of text.matchAll(/\[([a-z-]+)\]$/gm)) rules.add(match[1]!)
    }
    for (const rule of [
      'dependency-cycle',
      'unknown-dependency',
      'self-dependency',
      'duplicate-agent',
      'missing-prompt',
      'missing-prompts-file',
      'unknown-status',
      'unknown-table-row',
      'unreadable-spend',
      'missing-table-row',
      'file-conflict',
      'no-agents-section',
      'path-outside-repo',
      'invalid-front-matter',
      'invalid-setting',
      'malformed-table',
      'unterminated-fence',
      'empty-file',
      'binary-file',
      'not-a-file',
      'file-not-found'
    ]) {
      expect(rules, rule).toContain(rule)
    }
  })
})
