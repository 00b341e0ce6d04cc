import {readFile} from 'node:fs/promises'
import {describe, expect, it} from 'vitest'
import {issuesToPlan} from '../../../src/import/issues-to-plan.js'
import {readIssues} from '../../../src/import/read-issues.js'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {validatePlan} from '../../../src/plan/validate-plan.js'

describe('an imported plan', () => {
  it('passes mdplan validate without errors or warnings', async () => {
    const source = await readFile(new URL('../../../fixtures/import/waves/issues.jsonl', import.meta.url), 'utf8')
    const {text} = issuesToPlan(readIssues(source, 'issues.jsonl'), {source: 'issues.jsonl', runner: 'claude'})
    const plan = parsePlan(text, 'plan.md')
    const problems = [...plan.messages, ...validatePlan(plan)].filter((d) => d.severity !== 'info')
    expect(problems).toEqual([])
  })
})
