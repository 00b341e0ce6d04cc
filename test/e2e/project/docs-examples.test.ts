import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {cp, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {dirname, join, relative, resolve} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {isolateGitConfig, tempRepo} from '../../helpers/git-repo.js'
import {bin, readTable, root, runCli} from '../../helpers/run-cli.js'

// The README and docs/ stay true by test: every plan they show validates (or fails as documented), the quick
// start's demo runs, and every relative link lands on a file and heading that exist. How to mark an example is in
// docs/development.md ("The docs' own test").

beforeAll(isolateGitConfig)

const docs = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)]
const text = (file: string): string => readFileSync(join(root, file), 'utf8')

interface Block {
  file: string
  /** 1-based line of the opening fence. */
  line: number
  info: string
  body: string
  /** The nearest non-blank line before the fence. */
  before: string
}

/** Fenced code blocks (``` or ~~~, any length, indented or not), with their info string and content. */
function fencedBlocks(file: string): Block[] {
  const lines = text(file).split('\n')
  const blocks: Block[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(lines[i]!)
    if (!open) continue
    const [, indent, fence, info] = open
    const body: string[] = []
    let j = i + 1
    for (; j < lines.length; j++) {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(lines[j]!)
      if (close && close[1]![0] === fence![0] && close[1]!.length >= fence!.length) break
      body.push(lines[j]!.startsWith(indent!) ? lines[j]!.slice(indent!.length) : lines[j]!.trimStart())
    }
    let k = i - 1
    while (k >= 0 && lines[k]!.trim() === '') k--
    blocks.push({file, line: i + 1, info: info!.trim().split(/\s+/)[0] ?? '', body: body.join('\n') + '\n', before: k >= 0 ? lines[k]!.trim() : ''})
    i = j
  }
  return blocks
}

/** The plans the docs show: ```markdown or ```md blocks with a `## Agents` heading, unless marked skip. */
const plans = docs
  .flatMap(fencedBlocks)
  .filter((block) => (block.info === 'markdown' || block.info === 'md') && /^## Agents\s*$/m.test(block.body))
  .filter((block) => !/<!--\s*docs-test:\s*skip\b/.test(block.before))

/** Prose only: fenced blocks and code spans cut out, so a link shown as code is not read as one. */
function prose(file: string): string {
  const lines = text(file).split('\n')
  const kept: string[] = []
  let fence: string | undefined
  for (const line of lines) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && /^\s*[`~]+\s*$/.test(line)) fence = undefined
      kept.push('')
    } else if (marker) {
      fence = marker
      kept.push('')
    } else kept.push(line.replace(/(`+)[^`]*?\1/g, ''))
  }
  return kept.join('\n')
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>()
  const result = new Set<string>()
  let fence: string | undefined
  for (const line of text(file).split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined
      continue
    }
    if (marker) {
      fence = marker
      continue
    }
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!heading) continue
    const words = heading[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    const slug = words.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-')
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    result.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return result
}

describe('the plans the docs show', () => {
  let scratch = ''
  afterAll(async () => {
    if (scratch) await rm(scratch, {recursive: true, force: true})
  })

  it('finds the examples (README, plan format, hosts, nested plans)', () => {
    const files = new Set(plans.map((block) => block.file))
    for (const file of ['README.md', 'docs/plan-format.md', 'docs/hosts.md', 'docs/nested-plans.md']) expect([...files]).toContain(file)
  })

  it.each(plans.map((block) => [`${block.file}:${block.line}`, block] as const))('%s validates as documented', async (_, block) => {
    // A copy of plans/, so an example may name the child plans under plans/nested/.
    scratch ||= await mkdtemp(join(tmpdir(), 'mdplan-docs-'))
    const dir = await mkdtemp(join(scratch, 'plans-'))
    await cp(join(root, 'plans'), dir, {recursive: true})
    const plan = join(dir, 'docs-example.md')
    await writeFile(plan, block.body)
    const result = await runCli(['validate', plan], {cwd: dir})
    const invalid = /<!--\s*docs-test:\s*invalid\s*\[([\w-]+)\]\s*-->/.exec(block.before)
    if (invalid) {
      expect(result.exitCode, result.all).toBe(2)
      expect(result.all).toContain(`[${invalid[1]}]`)
    } else expect(result.exitCode, `${block.file}:${block.line}\n${result.all}`).toBe(0)
  })
})

describe("the README's quick start", () => {
  const quickStart = text('README.md').split(/^## /m).find((section) => section.startsWith('Quick start'))

  it('holds the two commands CI and newcomers run', () => {
    expect(quickStart).toBeDefined()
    const commands = fencedBlocks('README.md').find((block) => block.info === 'sh' && quickStart!.includes(block.body.trim()))
    expect(commands?.body).toBe('npm ci && node bin/mdplan.js run plans/demo.md\nnpm test\n')
  })

  it('runs the demo in a fresh git repository: exit 0, every row completed', async () => {
    const line = quickStart!.split('\n').find((l) => l.startsWith('npm ci && '))!
    const [node, script, ...args] = line.slice('npm ci && '.length).trim().split(/\s+/)
    expect([node, script]).toEqual(['node', 'bin/mdplan.js'])
    const planPath = args.at(-1)!
    const repo = await tempRepo({[planPath]: text(planPath)})
    try {
      const result = await runCli(args, {cwd: repo.root})
      expect(result.exitCode, result.all).toBe(0)
      const {rows} = await readTable(join(repo.root, planPath))
      expect(Object.keys(rows).length).toBeGreaterThan(0)
      for (const [id, row] of Object.entries(rows)) expect(row.status, id).toBe('completed')
      expect(existsSync(bin)).toBe(true)
    } finally {
      await repo.cleanup()
    }
  }, 120_000)
})

describe('links and words', () => {
  it.each(docs)('%s: every relative link points at a file and heading that exist', (file) => {
    const broken: string[] = []
    for (const match of prose(file).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue
      const [path, anchor] = target.split('#') as [string, string | undefined]
      const to = path === '' ? join(root, file) : resolve(dirname(join(root, file)), decodeURIComponent(path))
      if (relative(root, to).startsWith('..')) broken.push(`${target}: outside the repository`)
      else if (!existsSync(to)) broken.push(`${target}: no such file`)
      else if (anchor !== undefined && to.endsWith('.md') && !anchors(relative(root, to)).has(anchor)) broken.push(`${target}: no such heading`)
    }
    expect(broken).toEqual([])
  })

  it.each(docs)('%s: no path outside the repository, no internal issue number', (file) => {
    const body = text(file)
    expect(body).not.toContain('../shared')
    expect(body.match(/\bissues?\s+#?\d+/gi) ?? []).toEqual([])
    expect(body.match(/(^|[\s(])#\d+\b/gm) ?? []).toEqual([])
  })
})
