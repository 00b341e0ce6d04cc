import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {unified} from 'unified'
import remarkParse from 'remark-parse'
import remarkGfm from 'remark-gfm'
import remarkFrontmatter from 'remark-frontmatter'
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {leanTree, parseMarkdown} from '../../../src/plan/parse-markdown.js'
import {quickParse} from '../../../src/plan/quick-parse.js'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {mutate, mutation, planLine} from '../../helpers/fuzz-plan.js'
import {forEachShapes} from '../../helpers/real-plans.js'
import {root} from '../../helpers/run-cli.js'
import {sleepDag, toPlan} from '../../../bench/sleep-dag.js'
import {sized} from '../../helpers/quick.js'

// The quick reader (src/plan/quick-blocks.ts) must give exactly micromark's lean tree, or give
// up: every tree below is compared as JSON (key order included) with parseMarkdown's micromark
// path, and small ones with one whole-document remark parse too.

const whole = unified().use(remarkParse).use(remarkGfm).use(remarkFrontmatter).freeze()
const runs = Number(process.env.FUZZ_RUNS ?? sized(400, 80))
// Fixed by default so a failure reproduces; FUZZ_SEED=<n> explores further.
const seed = Number(process.env.FUZZ_SEED ?? 24)

/** Lines at the edges of what the quick reader takes: each is either read quickly or must make it give up. */
const edgeLine = fc.constantFrom(
  '# Title', '## Agents', '### A: first', '### B: two  words  ', '###  C: spaced', '### D: closing ##', '### E: `code`', '### F: a & b', '#### G',
  '####### seven', '#no-space', ' ## indented', '##', '# ', '### H: x #y', '### I: \\*esc', '### J: a_b', '### K: [link]',
  '- **depends_on**: [A]', '- plain item', '-  two spaces', '-', '- ', '- [ ] task', '- [x] done', '- - nested', '- # heading in item', '- ```',
  '- > quote', '* star item', '+ plus item', '**bold** line', '__init__ file', '___', '***', '* * *', '_ _ _', '*', '+', '*x', '+x', '_x_',
  '1. one', '2) two', '10. ten', '123456789. long', '1234567890. too long', '1.5 seconds',
  '  continued', '    sleep 0.5', '  - nested item', '   indented three', '      six spaces', ' one space', '  ```', '  # hash', '  1. ordered',
  '```', '```js', '``` js', '```  js', '```js meta words', '```js ', '````', '~~~', '~~~ tilde `ok`', '```a`b', '   ```', '    ```', '```\\js', '```&amp;', ' ```',
  '| Agent | Status |', '|---|---|', '|:--|--:|', '| :-: | --- |', '|---|', '| A | pending |', '|A|B|', '| a \\| b |', 'a | b', '--|--', '| x', '|',
  '|---|---', '| --- | --- | --- |', '|-|-|', '| `a|b` | c |', '| a | b |  ', '|---|---|  ',
  '===', '---', '--', '- - -', '-x', 'Title', '> quote', '<div>', '<!-- c -->', '[ref]: https://x', '[^1]: note', ':colon start', '\\escaped',
  '&amp; entity', 'trailing  ', '', '', '', '   ', '\t', 'tab\there', 'crlf\r', 'Started: —', 'Last updated: —', 'naïve ünïcode', '\u00a0nbsp', '\u0000nul',
  // Unicode spaces are no Markdown whitespace: JavaScript's trim would take them for some.
  '### L: nbsp\u00a0', '### M: em\u2003', '```\u00a0', '~~~\u3000', '| a |\u00a0', '|---|\u00a0', '\u00a0', 'x\u2003', '- item\u00a0', '\u00a0- not an item',
  // Line and paragraph separators end lines for JavaScript's `^`, not for Markdown.
  'a\u2028# not a heading', 'b\u2029## nor this', '### N: sep\u2028arator'
)
const line = fc.oneof({weight: 6, arbitrary: edgeLine}, {weight: 2, arbitrary: planLine}, {weight: 1, arbitrary: fc.string({maxLength: 12})})
const frontMatter = fc.constantFrom('', '', '---\nrunner: shell\n---\n', '---\n---\n', '---\n# comment\nx: 1\n---\n\n', '---  \na\n---\n', '---\na: 1\n--- \n', '---\nno close\n', '---\n...\n', '---\nx\n---x\n---\n')
const document = fc
  .tuple(frontMatter, fc.array(line, {maxLength: 30}), fc.boolean())
  .map(([head, lines, final]) => head + lines.join('\n') + (final ? '\n' : ''))

/** Blocks of the shapes the quick reader takes, now and then with an edge line in them. */
const text = fc.constantFrom('Plain words', 'Do the thing.', '**bold** start', 'x', 'naïve 10 agents', 'a | b', 'sleep 0.5', 'trailing  ')
const sometimes = (arbitrary: fc.Arbitrary<string>): fc.Arbitrary<string> => fc.oneof({weight: 12, arbitrary}, {weight: 1, arbitrary: edgeLine})
const block = fc.oneof(
  fc.array(sometimes(text), {minLength: 1, maxLength: 3}).map((lines) => lines.join('\n')),
  fc
    .array(fc.tuple(sometimes(text), fc.array(sometimes(fc.constantFrom('  continued', '    sleep 0.5', 'lazy line', ' one space')), {maxLength: 2})), {minLength: 1, maxLength: 4})
    .map((items) => items.map(([first, rest]) => [`- ${first}`, ...rest].join('\n')).join('\n')),
  fc
    .tuple(fc.constantFrom('```', '```sh', '~~~', '````', '``` js x', '~~~ a `b`'), fc.array(sometimes(fc.constantFrom('# inside', '## Agents', '```', 'code', '', '    deep', '```\u00a0')), {maxLength: 3}), fc.constantFrom('```', '~~~', '````', '  ```', '``` x', '', '```\u00a0'))
    .map(([open, lines, close]) => [open, ...lines, close].join('\n')),
  fc
    .tuple(fc.constantFrom('| Agent | Status |', '|A|B|', '| a | b |  ', '| a | b |\u00a0'), fc.constantFrom('|---|---|', '|:--|--:|', '| :-: | --- |', '|---|', '|---|---|\u00a0'), fc.array(sometimes(fc.constantFrom('| A | pending |', '| B |', '|')), {maxLength: 3}))
    .map(([header, delimiter, rows]) => [header, delimiter, ...rows].join('\n'))
)
const region = fc
  .tuple(fc.constantFrom('## Agents', '### A: first', '### B: two  words  ', '# Title', '## Execution State', '###  C: spaced', '### D: nbsp\u00a0'), fc.array(fc.tuple(block, fc.constantFrom('\n', '\n\n', '\n\n\n')), {maxLength: 4}))
  .map(([heading, blocks]) => heading + '\n' + blocks.map(([b, gap]) => b + gap).join(''))
const structured = fc
  .tuple(frontMatter, fc.array(region, {maxLength: 6}), fc.boolean())
  .map(([head, regions, final]) => head + regions.join('\n').replace(/\n$/, final ? '\n' : ''))

/** A sleep-DAG plan as the benches write it, with a few lines from the edge list put in. */
const generatedPlan = fc
  .tuple(fc.integer({min: 1, max: 40}), fc.nat(), fc.array(fc.tuple(fc.nat(), edgeLine), {maxLength: 4}))
  .map(([agents, dagSeed, inserts]) => {
    const lines = (toPlan(sleepDag({agents, seed: dagSeed % 1000}), {concurrency: 4})).split('\n')
    for (const [at, text] of inserts) lines.splice(at % (lines.length + 1), 0, text)
    return lines.join('\n')
  })

/** Every plan of `dir` (hand-written plans, or ours in their shapes) and the parse and validate fixtures. */
function plansOf(dir: string): string[] {
  const texts: string[] = []
  for (const name of readdirSync(dir, {recursive: true, encoding: 'utf8'})) if (name.endsWith('.md')) texts.push(readFileSync(join(dir, name), 'utf8'))
  for (const group of ['parse', 'validate']) {
    for (const name of readdirSync(join(root, 'fixtures', group))) {
      try {
        texts.push(readFileSync(join(root, 'fixtures', group, name, 'plan.md'), 'utf8'))
      } catch {
        // Some validate fixtures are deliberately not files.
      }
    }
  }
  return texts.map((text) => text.replace(/^\uFEFF/, ''))
}

/** Compare the quick path with micromark's; count the texts it read at least one region of. */
function same(text: string, counts: {quick: number}): void {
  const micromark = parseMarkdown(text, {lean: true, quick: false})
  expect(JSON.stringify(parseMarkdown(text, {lean: true}))).toBe(JSON.stringify(micromark))
  if (text.length <= 8 * 1024) expect(micromark).toEqual(leanTree(whole.parse(text)))
  if (quickParse(text, () => ({nodes: [], open: false}))) counts.quick++
}

describe('the quick block reader', () => {
  it('reads generated plan-like Markdown exactly as micromark does', () => {
    const counts = {quick: 0}
    fc.assert(
      fc.property(document, (text) => same(text, counts)),
      {numRuns: runs, seed}
    )
    // The generator reaches the quick path, not only its refusals.
    expect(counts.quick).toBeGreaterThan(runs / 8)
  })

  it('reads generated regions of the shapes it takes (and some it does not) exactly as micromark does', () => {
    const counts = {quick: 0}
    fc.assert(
      fc.property(structured, (text) => same(text, counts)),
      {numRuns: runs, seed}
    )
    expect(counts.quick).toBeGreaterThan(runs / 2)
  })

  it('reads sleep-DAG plans, edited, exactly as micromark does', () => {
    const counts = {quick: 0}
    fc.assert(
      fc.property(generatedPlan, (text) => same(text, counts)),
      {numRuns: runs / 4, seed}
    )
    expect(counts.quick).toBeGreaterThan(runs / 8)
  })

  it('a 1000-agent plan: the same plan, read without micromark', () => {
    const text = toPlan(sleepDag({agents: 1000, seed: 7, minMs: 1000, maxMs: 2000}), {concurrency: 16})
    let regions = 0
    const tree = quickParse(text, (start, end) => {
      regions++
      return {nodes: parseMarkdown(text.slice(start, end), {lean: true, quick: false}).children, open: false}
    })
    expect(regions).toBe(0)
    expect(JSON.stringify(tree)).toBe(JSON.stringify(parseMarkdown(text, {lean: true, quick: false})))
    expect(parsePlan(text, 'plan.md').agents).toHaveLength(1000)
  })
})

forEachShapes((shapes) => {
  it('reads plans in real plans\' shapes, as they are and mutated, exactly as micromark does', () => {
    const plans = plansOf(shapes.dir)
    expect(plans.length).toBeGreaterThan(20)
    const counts = {quick: 0}
    for (const text of plans) same(text, counts)
    fc.assert(
      fc.property(fc.constantFrom(...plans), fc.array(mutation, {minLength: 1, maxLength: 6}), (text, edits) => same(mutate(text, edits), counts)),
      {numRuns: runs / 8, seed}
    )
    expect(counts.quick).toBeGreaterThan(plans.length / 2)
  })
})
