import {readdirSync, readFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {unified} from 'unified'
import remarkParse from 'remark-parse'
import remarkGfm from 'remark-gfm'
import remarkFrontmatter from 'remark-frontmatter'
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {leanTree, parseMarkdown} from '../../../src/plan/parse-markdown.js'
import {sized} from '../../helpers/quick.js'

const whole = unified().use(remarkParse).use(remarkGfm).use(remarkFrontmatter).freeze()
const fixtures = fileURLToPath(new URL('../../../fixtures/parse/', import.meta.url))

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
    // Four parses of 200 KB: about 4 s beside another run on 2 cores, past the 30 s default under heavy load.
  }, 120_000)

  it('cuts no chunk after a line or paragraph separator (a line ending to JavaScript, not to Markdown)', () => {
    const text = Array.from({length: 400}, (_, i) => `### T${i}: x\n\nWords before\u2028# not a heading ${i}\n\nand\u2029## nor this\n`).join('\n')
    expect(text.length).toBeGreaterThan(16_000)
    expect(parseMarkdown(text, {quick: false})).toEqual(whole.parse(text))
    expect(parseMarkdown(text, {lean: true, quick: false})).toEqual(leanTree(whole.parse(text)))
    expect(parseMarkdown(text, {lean: true})).toEqual(leanTree(whole.parse(text)))
  })

  it('a plan below the chunk size is parsed in one go', () => {
    const text = readFileSync(`${fixtures}skeleton/plan.md`, 'utf8')
    expect(parseMarkdown(text)).toEqual(whole.parse(text))
  })
})

// Lines whose inline syntax a blocks-only parse leaves as plain text, in headings and around them.
const inlineLines = [
  '### A: `auth` module',
  '### B: *emphasis* and __strong__ ~~gone~~',
  '## Agents [link](https://example.com) ![img](x.png)',
  '# see www.example.com, https://example.com/a_b and ops@example.com',
  '### C: escaped \\* star &amp; entity &copy; <b>html</b> <https://auto.link>',
  '### D: footnote[^1] and [ref][r]',
  '### E: plain heading',
  'Setext *heading* `code`',
  '===',
  'Setext plain',
  '---',
  'Setext with a hard break\\',
  'escaped at the line end &amp; an entity',
  '===',
  '- ### F: heading *in* a list',
  '> ## quoted `heading`',
  '>   # deeper *one*',
  '   ### G: indented `three`',
  '[^1]: a footnote with *emphasis*',
  '[r]: https://example.com "title &amp; more"',
  '```js title="a\\_b" &amp;',
  'code *not emphasis*',
  '```',
  '| Agent | Status | Notes |',
  '|---|---|---|',
  '| A | `pending` | see *this* \\| that |',
  'A paragraph with `code`, *emphasis* and a [link](x)',
  '- **depends_on**: [A, `B`]',
  '<div>',
  '# in html',
  '</div>',
  '',
  ''
]

// Without the lines that send a whole chunk to a full parse (headings in containers, definitions),
// so that each heading's own completion is what gets compared.
const alone = inlineLines.filter((line) => !/^(?:- |> |>? +#|\[)/.test(line))

describe('parseMarkdown lean: blocks only, headings complete', () => {
  it('equals the lean form of a full parse, whatever inline syntax the document holds', () => {
    const text = inlineLines.join('\n')
    expect(parseMarkdown(text, {lean: true})).toEqual(leanTree(whole.parse(text)))
  })

  it('for each kind of heading alone (no other heading sends the document to a full parse)', () => {
    const headings = [
      '### A: `auth` module',
      '### B: *emphasis* and __strong__ ~~gone~~',
      '## Agents [link](https://example.com) ![img](x.png)',
      '# see www.example.com, https://example.com/a_b and ops@example.com',
      '### C: escaped \\* star &amp; entity &copy; <b>html</b> <https://auto.link>',
      '### D: footnote[^1] and [ref][r]\n\n[r]: https://example.com',
      'Setext *heading* `code`\n===',
      'Setext with a hard break\\\nescaped at the line end &amp; an entity\n===',
      '### E: plain heading, &amp; an entity'
    ]
    for (const text of headings) expect(parseMarkdown(text, {lean: true}), text).toEqual(leanTree(whole.parse(text)))
  })

  it('on any arrangement of inline-heavy lines, in whole and chunked documents', () => {
    fc.assert(
      fc.property(fc.oneof(fc.array(fc.constantFrom(...inlineLines), {maxLength: 80}), fc.array(fc.constantFrom(...alone), {maxLength: 80})), fc.integer({min: 0, max: 120}), (picked, padding) => {
        // Padding pushes larger documents past the chunk size, so chunk boundaries move around too.
        const text = [...picked, ...Array.from({length: padding}, (_, i) => `### P${i}: padding *${i}*\n\n${'words '.repeat(20)}\n`)].join('\n')
        expect(parseMarkdown(text, {lean: true})).toEqual(leanTree(whole.parse(text)))
      }),
      {numRuns: Number(process.env.FUZZ_RUNS ?? sized(40, 10))}
    )
  })
})
