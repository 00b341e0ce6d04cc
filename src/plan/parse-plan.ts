import path from 'node:path'
import type {Heading, RootContent} from 'mdast'
import {checkConflictMarkers} from './check-conflict-markers.js'
import {extractAgents} from './extract-agents.js'
import {inlineText} from './inline-text.js'
import {locate, type Locator} from './locate.js'
import {closedFence, parseMarkdown} from './parse-markdown.js'
import {readCommands} from './read-commands.js'
import {readFrontMatter} from './read-front-matter.js'
import {readPromptsFile} from './read-prompts-file.js'
import {readStateTable} from './read-state-table.js'
import type {Diagnostic, Plan, Section} from './types.js'

/** The prompts file of a two-file plan, read by the caller. */
export interface PromptsSource {
  file: string
  source: string
}

const promptsLine = /^[ \t]*\*\*Prompts:?\*\*:?[ \t]*(.+?)[ \t]*$/gim

/**
 * Parse a plan's text into the Plan model. Pure: the caller reads the file
 * (and the prompts file of a two-file plan). Never throws on bad Markdown:
 * problems go to `plan.messages` with positions.
 */
export function parsePlan(source: string, file: string, prompts?: PromptsSource): Plan {
  // micromark drops a BOM itself and shifts its offsets: strip it first so
  // offsets index `plan.text`.
  const bom = source.charCodeAt(0) === 0xfeff
  const text = bom ? source.slice(1) : source
  const firstBreak = text.indexOf('\n')
  const at = locate(text)
  const messages: Diagnostic[] = []
  const nodes = parseMarkdown(text, {lean: true}).children

  const plan: Plan = {
    file,
    text,
    bom,
    eol: firstBreak > 0 && text[firstBreak - 1] === '\r' ? '\r\n' : '\n',
    finalNewline: text.endsWith('\n'),
    settings: {raw: {}},
    agents: [],
    sections: [],
    preVerification: [],
    integrationTests: [],
    messages
  }

  // Headings of depth ≤ 2 bound the H2 sections.
  const bounds: number[] = []
  for (let index = 0; index < nodes.length; index++) {
    const node = nodes[index]!
    if (node.type === 'heading' && node.depth <= 2) bounds.push(index)
    else if (node.type === 'yaml' && index === 0) {
      plan.settings = readFrontMatter(text, node.position!.start.offset!, node.position!.end.offset!, at, file, messages)
    }
  }

  let agentsSeen = false
  for (let b = 0; b < bounds.length; b++) {
    const heading = nodes[bounds[b]!] as Heading
    const title = inlineText(heading).trim()
    if (heading.depth === 1) {
      if (plan.title === undefined) plan.title = title.replace(/^parallel plan\s*:\s*/i, '')
      continue
    }
    const first = bounds[b]! + 1
    const last = b + 1 < bounds.length ? bounds[b + 1]! : nodes.length
    const start = heading.position!.start.offset!
    const headingEnd = heading.position!.end.offset!
    const end = last < nodes.length ? nodes[last]!.position!.start.offset! : text.length
    const section: Section = {title, heading: at.span(start, headingEnd), section: at.span(start, end), body: text.slice(bodyStart(text, headingEnd), end)}
    plan.sections.push(section)
    if (readSection(plan, at, section, {start, headingEnd, end}, nodes.slice(first, last), agentsSeen)) agentsSeen = true
  }

  if (!agentsSeen) {
    messages.push({severity: 'error', rule: 'no-agents-section', reason: 'no `## Agents` section: a plan lists its agents under `## Agents` as `### <ID>: <name>` headings', file})
  }

  unterminatedFence(nodes, text, at, file, messages)
  // A merge's leftovers are never content: a table read up to its first marker would relaunch completed agents.
  messages.push(...checkConflictMarkers(plan, at))
  findPromptsFile(plan, nodes, at)
  if (plan.promptsFile && prompts) applyPromptsFile(plan, prompts)
  return plan
}

/**
 * Read an H2 section (its nodes `inside`) into the plan, by its title: the
 * first `## Agents`, the first `## Execution State`, open questions, commands.
 * Returns whether it was the `## Agents` section read (`agentsSeen`: one was).
 */
function readSection(plan: Plan, at: Locator, section: Section, {start, headingEnd, end}: {start: number; headingEnd: number; end: number}, inside: RootContent[], agentsSeen: boolean): boolean {
  const {text, file, messages} = plan
  switch (sectionKey(section.title)) {
    case 'agents':
      if (agentsSeen) break
      plan.agents = extractAgents({text, at, file, nodes: inside, end, messages})
      if (plan.agents.length === 0) {
        messages.push({severity: 'error', rule: 'no-agents', reason: 'the `## Agents` section has no `### <ID>: <name>` agent headings', file, place: section.heading})
      }
      return true
    case 'execution state':
      if (plan.state) {
        messages.push({severity: 'warning', rule: 'duplicate-state-section', reason: 'a second `## Execution State` section is ignored: only the first one is read and written', file, place: section.heading})
        break
      }
      plan.state = readStateTable({text, at, file, heading: {start, end: headingEnd}, end, nodes: inside, messages})
      break
    case 'open questions':
      plan.openQuestions ??= section
      break
    case 'pre execution verification':
      plan.preVerification.push(...readCommands(inside, at))
      break
    case 'integration tests':
      plan.integrationTests.push(...readCommands(inside, at))
      break
    default:
  }
  return false
}

/**
 * Give the agents of a two-file plan their prompts from the prompts file
 * (`## <ID>: <name>` sections). An explicit `prompt` key in the plan wins;
 * otherwise the prompts file wins over stray text left in the agent's section.
 */
export function applyPromptsFile(plan: Plan, prompts: PromptsSource): void {
  const byId = readPromptsFile(prompts.source, prompts.file)
  for (const agent of plan.agents) {
    if (agent.prompt && agent.prompt.source !== 'rest') continue
    const prompt = byId.get(agent.id)
    if (prompt) agent.prompt = prompt
  }
}

/** `Pre-Execution Verification` → `pre execution verification`. */
function sectionKey(title: string): string {
  return title
    .toLowerCase()
    .replace(/[\s_-]+/g, ' ')
    .replace(/[:.]$/, '')
    .trim()
}

/** The offset just after the heading's line ending. */
function bodyStart(text: string, headingEnd: number): number {
  const next = text.indexOf('\n', headingEnd)
  return next === -1 ? text.length : next + 1
}

/** A fence never closed runs to the end of the file and swallows every section after it. */
function unterminatedFence(nodes: RootContent[], text: string, at: Locator, file: string, messages: Diagnostic[]): void {
  let node: RootContent | undefined = nodes[nodes.length - 1]
  while (node) {
    if (node.type === 'code') {
      const start = node.position!.start.offset!
      const end = node.position!.end.offset!
      if (!closedFence(text, start, end) && text.slice(end).trim() === '') {
        const fence = /[`~]{3,}/.exec(text.slice(start, at.lineEnd(start)))![0]
        messages.push({
          severity: 'error',
          rule: 'unterminated-fence',
          reason: `code fence opened with ${fence} is never closed: everything after it is read as code`,
          file,
          place: at.span(start, at.lineEnd(start))
        })
      }
      return
    }
    node = 'children' in node && node.children.length > 0 ? (node.children[node.children.length - 1]) : undefined
  }
}

/** Two-file plans: a `**Prompts:** path` line (in a paragraph, not in code). */
function findPromptsFile(plan: Plan, nodes: RootContent[], at: Locator): void {
  const {text} = plan
  if (!text.includes('**Prompts')) return
  promptsLine.lastIndex = 0
  for (let match = promptsLine.exec(text); match; match = promptsLine.exec(text)) {
    const node = nodeAt(nodes, match.index)
    if (!node || node.type !== 'paragraph') continue
    let target = match[1]!.trim()
    const link = /^\[[^\]]*\]\(([^)\s]+)[^)]*\)$/.exec(target)
    if (link) target = link[1]!
    target = target.replace(/^[`<"']+|[`>"']+$/g, '')
    if (target === '') continue
    const base = path.dirname(plan.file)
    plan.promptsFile = {path: path.isAbsolute(target) ? target : path.join(base, target), position: at.span(match.index, match.index + match[0].length)}
    return
  }
}

/** The root node whose source holds `offset` (binary search; root nodes are in order). */
function nodeAt(nodes: RootContent[], offset: number): RootContent | undefined {
  let low = 0
  let high = nodes.length - 1
  while (low <= high) {
    const mid = (low + high) >> 1
    const node = nodes[mid]!
    if (offset < node.position!.start.offset!) high = mid - 1
    else if (offset >= node.position!.end.offset!) low = mid + 1
    else return node
  }
  return undefined
}
