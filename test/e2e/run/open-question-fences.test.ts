import {join} from 'node:path'
import {readFile} from 'node:fs/promises'
import fc from 'fast-check'
import type {Heading} from 'mdast'
import remarkGfm from 'remark-gfm'
import remarkParse from 'remark-parse'
import {unified} from 'unified'
import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {entryHeading, openQuestionEntries} from '../../../src/protocol/open-question-entries.js'
import {readAnswers} from '../../../src/protocol/read-answers.js'
import {renderOpenQuestion} from '../../../src/protocol/render-open-question.js'
import {setAnswer} from '../../../src/protocol/set-answer.js'
import {logged, readAgentLog} from '../../helpers/agent-log.js'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {runCli} from '../../helpers/run-cli.js'

/** A shell agent that asks `question` until it has an answer, then records the answer it got. */
function asking(id: string, question: string, log: string, dir: string): string {
  const body = [
    `if [ -n "$MDPLAN_ANSWER" ]; then printf '%s' "$MDPLAN_ANSWER" > '${dir}/answer-${id}.txt'; echo RESULT: SUCCESS; exit 0; fi`,
    `printf 'RESULT: QUESTION\\nQuestion: ${question}\\nContext: none\\nOptions:\\n1. one\\n2. two\\n'`
  ].join('\n')
  return [`### ${id}: ${id.toLowerCase()}`, '- **depends_on**: []', '- **prompt**: |', ...logged(log, body).split('\n').map((line) => `    ${line}`), ''].join('\n')
}

describe('answers with code in them reach their own agent', () => {
  it('mdplan answer plan.md A with inline triple backticks, then B: each agent resumes with its own answer, once', async () => {
    await isolateGitConfig()
    const repo = await tempRepo({'README.md': '# x\n'})
    const log = join(repo.root, 'agents.log')
    const plan = ['---', 'runner: shell', 'concurrency: 1', '---', '', '# Parallel Plan: q', '', '## Agents', '', asking('A', 'How to install?', log, repo.root), asking('B', 'Which db?', log, repo.root)].join('\n')
    await repo.commit('plan', {'plan.md': plan})
    // One at a time, so A's entry comes first and its answer's fences could swallow B's entry below it.
    expect((await runCli(['run', 'plan.md'], {cwd: repo.root})).exitCode).toBe(1)
    const answerA = 'Use npm:\n```npm ci``` then ```npm test```'
    const a = await runCli(['answer', 'plan.md', 'A', answerA], {cwd: repo.root})
    expect(a.exitCode).toBe(0)
    // Today's reader took the second line for a fence that swallowed B's entry.
    const b = await runCli(['answer', 'plan.md', 'B', 'sqlite'], {cwd: repo.root})
    expect(b.stderr).toBe('')
    expect(b.exitCode).toBe(0)
    const answers = readAnswers(parsePlan(await repo.read('plan.md'), 'plan.md'))
    expect(answers.map((entry) => [entry.agent, entry.answer])).toEqual([
      ['A', 'Use npm:\n```npm ci``` then ```npm test```'],
      ['B', 'sqlite']
    ])
    const rerun = await runCli(['run', 'plan.md'], {cwd: repo.root})
    expect(rerun.exitCode).toBe(0)
    expect(await readFile(join(repo.root, 'answer-A.txt'), 'utf8')).toContain('```npm ci``` then ```npm test```')
    expect(await readFile(join(repo.root, 'answer-B.txt'), 'utf8')).toContain('sqlite')
    expect(await readFile(join(repo.root, 'answer-B.txt'), 'utf8')).not.toContain('npm')
    // Launches counted from the agents' side: one per agent per run (an answer resumes the same attempt).
    const side = await readAgentLog(log)
    expect(side.lines.filter((line) => line.startsWith('start')).map((line) => line.split(' ')[1]).sort()).toEqual(['A', 'A', 'B', 'B'])
    await repo.cleanup()
  })
})

const markdown = [
  '```npm ci``` then ```npm test```',
  '```',
  '````',
  '~~~',
  '```js',
  '   ```',
  '    ```',
  '### B: hijack?',
  '### Z: other',
  '## Heading',
  '<!--',
  '<details>',
  '> quoted',
  '- **answer**: nested',
  '1. item',
  '---',
  '===',
  '    indented code',
  '| a | b |',
  'plain words',
  '`x`',
  ''
]

/** The root-level H3 lines remark sees in a section: the reference the reader must agree with. */
function remarkEntryLines(text: string): number[] {
  const tree = unified().use(remarkParse).use(remarkGfm).parse(text)
  const lines = text.split('\n')
  return tree.children
    .filter((node): node is Heading => node.type === 'heading' && node.depth === 3)
    .map((node) => node.position!.start.line - 1)
    .filter((index) => entryHeading.test(lines[index]!))
}

describe('fuzz: the Open Questions reader against remark, answers holding any Markdown', () => {
  it('finds exactly the entries remark finds, and every agent reads back its own answer', () => {
    const answer = fc.array(fc.constantFrom(...markdown), {minLength: 1, maxLength: 6}).map((lines) => lines.join('\n'))
    fc.assert(
      fc.property(fc.array(answer, {minLength: 2, maxLength: 4}), (answers) => {
        const agents = answers.map((_, index) => String.fromCharCode(65 + index))
        let section = '\n' + agents.map((agent) => renderOpenQuestion({agent, question: `question ${agent}`, context: 'ctx', options: ['one', 'two'], resumeState: 'step 1'})).join('\n')
        for (const [index, agent] of agents.entries()) section = setAnswer(section, agent, answers[index]!)!
        const lines = section.split('\n')
        const entries = openQuestionEntries(lines)
        expect(entries.map((entry) => entry.start)).toEqual(remarkEntryLines(section))
        expect(entries.map((entry) => entry.agent)).toEqual(agents)
        const plan = parsePlan(`# Plan\n\n## Agents\n\n## Open Questions\n${section}`, 'plan.md')
        const read = readAnswers(plan)
        expect(read.map((entry) => entry.agent)).toEqual(agents)
        for (const [index, entry] of read.entries()) {
          const expected = answers[index]!.trim().split('\n').map((line) => line.trim()).filter((line) => line !== '').join('\n')
          expect(entry.answer ?? '', `answer of ${entry.agent}`).toBe(expected)
          expect(entry.resumeState).toBe('step 1')
        }
      }),
      {seed: Number(process.env.MDPLAN_FUZZ_SEED ?? 10), numRuns: Number(process.env.FUZZ_RUNS ?? 100)}
    )
  }, 120_000)
})
