import {readdirSync, readFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {unified} from 'unified'
import remarkParse from 'remark-parse'
import remarkGfm from 'remark-gfm'
import remarkFrontmatter from 'remark-frontmatter'
import {describe, expect, it} from 'vitest'
import {leanTree, parseMarkdown} from '../src/plan/parse-markdown.js'

const whole = unified().use(remarkParse).use(remarkGfm).use(remarkFrontmatter).freeze()
const fixtures = fileURLToPath(new URL('../fixtures/parse/', import.meta.url))

/** Column-0 `#` lines where a chunked parse could go wrong: in fences, HTML blocks, comments. */
function tricky(index: number): string {
  const filler = `Paragraph ${index} with enough words to fill the chunk a little more each time.\n`.repeat(40)
  return [
    `### T${index}: tricky`,
    filler,
    '```markdown',
    '# a heading inside a root fence',
    '## Execution State',
    '```',
    '',
    '~~~~',
    '### not a heading either',
    '```',
    '~~~~',
    '',
    '<!-- a comment',
    '',
    '# inside the comment',
    '-->',
    '',
    '<div>',
    '# inside an html block (no blank line)',
    '</div>',
    '',
    '- a list',
    '  ```',
    '# this line ends the list item and its fence',
    '',
    '| Agent | Status |',
    '|---|---|',
    `| T${index} | pending |`,
    '# a heading right after the table',
    ''
  ].join('\n')
}

describe('parseMarkdown (chunked for large plans)', () => {
  it('gives the same tree as one whole-document parse', () => {
    const parts = ['---', 'runner: shell', '---', '', '# Big', '']
    for (const name of readdirSync(fixtures).sort()) parts.push(readFileSync(`${fixtures}${name}/plan.md`, 'utf8').replace(/^\uFEFF/, '').replace(/^---[\s\S]*?---\n/, ''))
    for (let index = 0; index < 60; index++) parts.push(tricky(index))
    parts.push('```', '# an unterminated fence at the end swallows this', '')
    const text = parts.join('\n')
    expect(text.length).toBeGreaterThan(200_000)
    expect(parseMarkdown(text)).toEqual(whole.parse(text))
    expect(parseMarkdown(text, {lean: true})).toEqual(leanTree(whole.parse(text)))
  })

  it('a plan below the chunk size is parsed in one go', () => {
    const text = readFileSync(`${fixtures}skeleton/plan.md`, 'utf8')
    expect(parseMarkdown(text)).toEqual(whole.parse(text))
  })
})
