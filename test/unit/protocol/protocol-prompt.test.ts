import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {answerFollowUp, assemblePrompt, reviewFollowUp} from '../../../src/protocol/assemble-prompt.js'
import {agentPrompt} from '../../../src/protocol/agent-prompt.js'

const prompt = 'Create `src/a.ts` with "quotes", $(subshell) and `ticks`.\n\n## Boundaries\nDO NOT touch b.ts.\n'
const body = `# Plan

## Shared Contract
### Types
\`\`\`ts
export interface Credential { id: string }
\`\`\`

## Prompt Preamble

You are one agent of a parallel plan. End with a RESULT line.

## Agents

### A: types
- **depends_on**: []
- **prompt**: |
${prompt.split('\n').map((line) => (line === '' ? '' : `    ${line}`)).join('\n')}
`

describe('assemblePrompt', () => {
  it('is the agent prompt, byte for byte, when the plan has nothing to add', () => {
    const plan = parsePlan(`# Plan\n\n## Agents\n\n### A: x\n- **prompt**: |\n${prompt.split('\n').map((l) => (l ? `    ${l}` : '')).join('\n')}\n`, 'p.md')
    expect(assemblePrompt({plan, agent: plan.agents[0]!})).toBe(plan.agents[0]!.prompt!.text)
  })

  it('puts the Shared Contract and Prompt Preamble first, verbatim', () => {
    const plan = parsePlan(body, 'p.md')
    const text = assemblePrompt({plan, agent: plan.agents[0]!})
    expect(text).toBe(
      '## Shared Contract\n### Types\n```ts\nexport interface Credential { id: string }\n```\n\n' +
        'You are one agent of a parallel plan. End with a RESULT line.\n\n' +
        plan.agents[0]!.prompt!.text
    )
    expect(plan.agents[0]!.prompt!.text).toBe(prompt.trimEnd())
  })

  it('adds discoveries and the previous failure with its checkpoint after the prompt', () => {
    const plan = parsePlan(body, 'p.md')
    const text = assemblePrompt({
      plan,
      agent: plan.agents[0]!,
      retry: {attempt: 2, previousFailure: 'tests fail', checkpoint: 'step 3'},
      discoveries: [{agent: 'Z', text: 'the API returns 204'}]
    })
    expect(text).toContain(`${prompt.trimEnd()}\n\n## Discoveries from earlier agents\n\n- Z: the API returns 204\n\n## Previous attempt\n\nAttempt 1 failed: tests fail\nCheckpoint it reached: step 3\n\nThis is attempt 2.`)
  })

  it('sends only the answer follow-up when resuming the session', () => {
    const plan = parsePlan(body, 'p.md')
    const answer = {question: 'Redis or SQLite?', resumeState: 'step: 3\n```inner```', answer: 'Option 2', options: ['Redis', 'SQLite']}
    const text = assemblePrompt({plan, agent: plan.agents[0]!, answer, resuming: true})
    expect(text).toBe(answerFollowUp(answer))
    expect(text).toBe(
      [
        'Your question was answered.',
        '',
        'Question: Redis or SQLite?',
        'Answer: Option 2: SQLite',
        '',
        'Resume State:',
        '````',
        'step: 3',
        '```inner```',
        '````',
        '',
        "Resume the process with that state and the user's answer, and continue from where you left off. End with a RESULT line as before."
      ].join('\n')
    )
    // A relaunch (the session cannot be resumed) gets the whole prompt and the answer.
    const relaunch = assemblePrompt({plan, agent: plan.agents[0]!, answer})
    expect(relaunch.startsWith('## Shared Contract')).toBe(true)
    expect(relaunch.endsWith(answerFollowUp(answer))).toBe(true)
  })

  it('gives a review\'s note as an answer is given: the follow-up alone to a resumed session, after the prompt to a new one', () => {
    const plan = parsePlan(body, 'p.md')
    const agent = plan.agents[0]!
    const followUp = reviewFollowUp('use tabs')
    expect(assemblePrompt({plan, agent, review: 'use tabs', resuming: true})).toBe(followUp)
    expect(followUp).toBe(
      'Your work was reviewed and sent back.\n\nReview: use tabs\n\nYour earlier work is in the working directory. Change it as the review asks, and end with a RESULT line as before.'
    )
    const fresh = assemblePrompt({plan, agent, review: 'use tabs'})
    expect(fresh.startsWith('## Shared Contract')).toBe(true)
    expect(fresh.endsWith(followUp)).toBe(true)
    // The shell runner gets it in the environment, its script verbatim.
    expect(agentPrompt({name: 'shell'}, {plan, agent, review: 'use tabs'}).env).toEqual({MDPLAN_REVIEW: 'use tabs'})
  })

  it('asks an interrupted session to continue', () => {
    const plan = parsePlan(body, 'p.md')
    expect(assemblePrompt({plan, agent: plan.agents[0]!, resumeInterrupted: true})).toMatch(/^The run that started you stopped/)
  })
})
