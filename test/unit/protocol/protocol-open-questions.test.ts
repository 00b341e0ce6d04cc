import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {readAnswers} from '../../../src/protocol/read-answers.js'
import {renderOpenQuestion} from '../../../src/protocol/render-open-question.js'
import {setAnswer} from '../../../src/protocol/set-answer.js'
import {upsertOpenQuestion} from '../../../src/protocol/upsert-open-question.js'

const entry = {
  agent: 'B',
  question: 'Which store\nshould the cache use?',
  context: 'The plan names no store.\n## Not a heading',
  options: ['Redis', 'SQLite\n(simpler)'],
  resumeState: 'step: 3 of 5\n```\nnested fence\n```'
}

const rendered = [
  '### B: Which store should the cache use?',
  '',
  '**Context:**',
  '',
  '> The plan names no store.',
  '> ## Not a heading',
  '',
  '**Options:**',
  '',
  '1. Redis',
  '2. SQLite (simpler)',
  '',
  '**Resume state:**',
  '',
  '````',
  'step: 3 of 5',
  '```',
  'nested fence',
  '```',
  '````',
  '',
  '- **answer**:'
].join('\n')

const planText = (questions: string) => `# Plan

## Agents

### A: one
- **prompt**: |
    do A

### B: two
- **prompt**: |
    do B

${questions}## Execution State

| Agent | Status | Agent ID | Duration | Notes |
|-------|--------|----------|----------|-------|
| A | completed | x | 1s | |
| B | needs_input | y | 1s | question: which store |
`

describe('renderOpenQuestion', () => {
  it('renders the entry plan-format.md describes', () => {
    expect(renderOpenQuestion(entry)).toBe(rendered)
    expect(renderOpenQuestion(entry, '\r\n')).toBe(rendered.replace(/\n/g, '\r\n'))
  })
})

describe('upsertOpenQuestion', () => {
  it('creates the section', () => {
    expect(upsertOpenQuestion(undefined, entry)).toBe(`## Open Questions\n\n${rendered}\n`)
  })

  it("appends, keeping others' bytes, and replaces the agent's own entry in place", () => {
    const other = '## Open Questions\n\nIntro   text kept.\n\n### A: old?\n\n- **answer**: yes  \n\n'
    const appended = upsertOpenQuestion(other, entry)
    expect(appended).toBe(`## Open Questions\n\nIntro   text kept.\n\n### A: old?\n\n- **answer**: yes  \n\n${rendered}\n\n`)
    const replaced = upsertOpenQuestion(appended.replace('### B: Which store', '### B: Stale'), {...entry, question: 'New?'})
    expect(replaced).toBe(`## Open Questions\n\nIntro   text kept.\n\n### A: old?\n\n- **answer**: yes  \n\n${rendered.replace('Which store should the cache use?', 'New?')}\n\n`)
    const middle = upsertOpenQuestion(`${appended}### C: later\n\n- **answer**:\n`, {...entry, question: 'Mid?'})
    expect(middle).toContain(`${rendered.replace('Which store should the cache use?', 'Mid?')}\n\n### C: later\n`)
  })

  it('accepts the parsed Section PlanStore.editSection passes', () => {
    const plan = parsePlan(planText(`## Open Questions\n\n${rendered}\n\n`), 'p.md')
    const section = plan.openQuestions ?? plan.sections.find((s) => s.title === 'Open Questions')!
    expect(upsertOpenQuestion(section, {...entry, agent: 'A', question: 'Also?'}, '\n', plan)).toContain(`${rendered}\n\n### A: Also?`)
    expect(upsertOpenQuestion(section, {...entry, agent: 'A'})).toMatch(/^## Open Questions\n\n### B: Which store/)
  })
})

describe('readAnswers and setAnswer', () => {
  it('reads what renderOpenQuestion wrote, unanswered, with its position', () => {
    const text = planText(`## Open Questions\n\n${rendered}\n\n`)
    const plan = parsePlan(text, 'p.md')
    const [question] = readAnswers(plan)
    expect(question).toMatchObject({
      agent: 'B',
      question: 'Which store should the cache use?',
      context: 'The plan names no store.\n## Not a heading',
      options: ['Redis', 'SQLite (simpler)'],
      resumeState: 'step: 3 of 5\n```\nnested fence\n```',
      answer: undefined
    })
    expect(text.slice(question!.position.start.offset, question!.position.end.offset)).toBe(rendered)
    expect(question!.position.start.line).toBe(text.slice(0, question!.position.start.offset).split('\n').length)
    expect(question!.position.start.column).toBe(1)
  })

  it('reads answers written by hand, on the line or indented below', () => {
    const questions = [
      '## Open Questions',
      '',
      rendered.replace('- **answer**:', '- **answer**: Option 2'),
      '',
      '### A: Free form?',
      'Context: typed by hand',
      '',
      '```',
      'state',
      '```',
      '',
      '- **Answer:** first line',
      '  second line',
      '',
      'Unrelated paragraph.',
      ''
    ].join('\n')
    const answers = readAnswers(parsePlan(planText(questions), 'p.md'))
    expect(answers.map((a) => [a.agent, a.answer, a.resumeState, a.context])).toEqual([
      ['B', 'Option 2', 'step: 3 of 5\n```\nnested fence\n```', 'The plan names no store.\n## Not a heading'],
      ['A', 'first line\nsecond line', 'state', 'typed by hand']
    ])
  })

  it('setAnswer writes after **answer**:, replacing an old answer', () => {
    const section = `## Open Questions\n\n${rendered}\n\n### C: other\n\n- **answer**:\n`
    const once = setAnswer(section, 'B', 'Option 1')!
    expect(once).toBe(section.replace('- **answer**:\n\n### C', '- **answer**: Option 1\n\n### C'))
    const twice = setAnswer(setAnswer(section, 'B', 'first\nsecond')!, 'B', 'Option 2')!
    expect(twice).toBe(once.replace('Option 1', 'Option 2'))
    expect(setAnswer(section, 'Z', 'x')).toBeUndefined()
    expect(setAnswer('## Open Questions\n\n### D: q?\n\nsome context\n', 'D', 'yes')).toBe('## Open Questions\n\n### D: q?\n\nsome context\n\n- **answer**: yes\n')
    const crlf = section.replace(/\n/g, '\r\n')
    expect(setAnswer(crlf, 'B', 'Option 1')).toBe(once.replace(/\n/g, '\r\n'))
  })
})
