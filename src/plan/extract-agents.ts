import type {Heading, List, ListItem, RootContent} from 'mdast'
import type {Locator} from './locate.js'
import {agentHeading} from './agent-heading.js'
import {agentHeadingProblem} from './agent-heading-problem.js'
import {inlineText} from './inline-text.js'
import {parseAgentRefs} from './parse-agent-refs.js'
import {parsePathRefs} from './parse-path-refs.js'
import {readField, type FieldRead} from './read-field.js'
import {trimLines} from './trim-lines.js'
import {parseDuration} from '../util/parse-duration.js'
import type {Agent, Diagnostic, Prompt} from './types.js'

export interface AgentsInput {
  text: string
  at: Locator
  file: string
  /** Root nodes of the `## Agents` section, after its heading. */
  nodes: RootContent[]
  /** Where the `## Agents` section ends. */
  end: number
  messages: Diagnostic[]
}

const hard = new Set(['depends_on', 'depends', 'dependencies', 'deps'])
const soft = new Set(['soft_depends_on', 'soft_depends', 'soft_dependencies', 'soft_deps'])
const pathKeys: Record<string, 'creates' | 'modifies' | 'deletes'> = {
  creates: 'creates',
  create: 'creates',
  modifies: 'modifies',
  modify: 'modifies',
  deletes: 'deletes',
  delete: 'deletes'
}

/** Every `### ID: name` section under `## Agents`, with its fields and prompt. */
export function extractAgents(input: AgentsInput): Agent[] {
  const {nodes} = input
  const agents: Agent[] = []
  const bounds: number[] = []
  for (let index = 0; index < nodes.length; index++) {
    const node = nodes[index]!
    if (node.type === 'heading' && node.depth <= 3) bounds.push(index)
  }

  for (let b = 0; b < bounds.length; b++) {
    const heading = nodes[bounds[b]!] as Heading
    if (heading.depth !== 3) continue
    const nextIndex = b + 1 < bounds.length ? bounds[b + 1]! : nodes.length
    const sectionEnd = nextIndex < nodes.length ? nodes[nextIndex]!.position!.start.offset! : input.end
    const agent = readAgent(input, bounds[b]!, nextIndex, sectionEnd)
    if (agent) agents.push(agent)
  }
  return agents
}

/** Where reading an agent's section stands. */
interface Reading {
  /** Where the text no field or fence took starts: the prompt, when there is no `prompt` key. */
  restStart: number
  seenFields: boolean
  promptKey: boolean
  /** A `prompt` key with no value ended its list: a fence right after the list is the prompt. */
  awaitingFence: boolean
}

/**
 * The agent whose `###` heading is `nodes[first]` and whose section runs to
 * `nodes[nextIndex]` (`sectionEnd`); undefined when the heading names none
 * (with a message when it looks meant to).
 */
function readAgent(input: AgentsInput, first: number, nextIndex: number, sectionEnd: number): Agent | undefined {
  const {text, at, file, nodes, messages} = input
  const heading = nodes[first] as Heading
  const title = inlineText(heading)
  const named = agentHeading(title)
  if (!named) {
    const problem = agentHeadingProblem(title, hasAgentFields(nodes.slice(first + 1, nextIndex), text, at, sectionEnd))
    if (problem) {
      messages.push({severity: 'error', rule: 'invalid-agent-heading', reason: problem, file, place: at.span(heading.position!.start.offset!, heading.position!.end.offset!)})
    }
    return undefined
  }
  const headingStart = heading.position!.start.offset!
  const headingEnd = heading.position!.end.offset!
  const agent: Agent = {
    id: named.id,
    name: named.name,
    position: at.span(headingStart, headingEnd),
    section: at.span(headingStart, sectionEnd),
    dependsOn: [],
    softDependsOn: [],
    creates: [],
    modifies: [],
    deletes: [],
    fields: {}
  }

  const reading: Reading = {restStart: headingEnd, seenFields: false, promptKey: false, awaitingFence: false}
  for (let index = first + 1; index < nextIndex; index++) {
    const node = nodes[index]!
    const nodeStart = node.position!.start.offset!
    // Nodes inside a `prompt: |` block that outran its list item belong to the prompt.
    if (nodeStart < reading.restStart) continue
    if (reading.awaitingFence && node.type === 'code') {
      agent.prompt = fencePrompt(node, at, file)
      reading.awaitingFence = false
      reading.restStart = node.position!.end.offset!
      continue
    }
    reading.awaitingFence = false
    if (node.type !== 'list' || !readFieldList(input, agent, node, sectionEnd, reading)) {
      if (reading.seenFields) break
      continue
    }
    reading.seenFields = true
    reading.restStart = Math.max(reading.restStart, node.position!.end.offset!)
  }

  if (!reading.promptKey) {
    const [from, to] = trimLines(text, reading.restStart, sectionEnd)
    if (to > from) agent.prompt = {text: lf(text.slice(from, to)), source: 'rest', file, position: at.span(from, to)}
  }
  return agent
}

/** The fields of one list in an agent's section onto `agent`; whether the list held any. */
function readFieldList(input: AgentsInput, agent: Agent, list: List, sectionEnd: number, reading: Reading): boolean {
  let anyField = false
  for (const item of list.children) {
    const itemStart = item.position!.start.offset!
    if (itemStart < reading.restStart) continue
    const read = readField(item, input.text, input.at, sectionEnd)
    if (!read) continue
    anyField = true
    reading.restStart = Math.max(reading.restStart, read.end)
    const {field} = read
    if (agent.fields[field.key]) continue
    agent.fields[field.key] = field
    applyField(input, agent, read, item === list.children[list.children.length - 1], item, reading)
  }
  return anyField
}

/** What a field (the first of its key) means for the agent: dependencies, files, an estimate, the prompt. `last`: its item ends the list. */
function applyField(input: AgentsInput, agent: Agent, read: FieldRead, last: boolean, item: ListItem, reading: Reading): void {
  const {text, at, file, messages} = input
  const {field} = read
  const key = field.key
  if (hard.has(key)) agent.dependsOn = parseAgentRefs(text, read.valueStart, read.valueEnd, at)
  else if (soft.has(key)) agent.softDependsOn = parseAgentRefs(text, read.valueStart, read.valueEnd, at)
  else if (pathKeys[key]) agent[pathKeys[key]] = parsePathRefs(text, read.valueStart, read.valueEnd, at)
  else if (key === 'estimated_duration' || key === 'estimate') {
    const ms = parseDuration(field.value)
    if (ms === undefined) {
      messages.push({
        severity: 'warning',
        rule: 'invalid-duration',
        reason: `\`${field.value}\` in \`${field.rawKey}\` of agent ${agent.id} is not a duration (try \`45s\`, \`5m\`, \`1h30m\`)`,
        file,
        place: at.span(read.valueStart, read.valueEnd)
      })
    } else agent.estimatedMs = ms
  } else if (key === 'prompt') {
    reading.promptKey = true
    // A fence right under the key (inside the item, or just after the list) is the prompt.
    const code = read.block || read.onKeyLine ? undefined : item.children.find((child) => child.type === 'code')
    if (code) agent.prompt = fencePrompt(code, at, file)
    else if (field.value !== '') agent.prompt = {text: field.value, source: 'inline', file, position: at.span(read.valueStart, read.valueEnd)}
    else reading.awaitingFence = last
  }
}

/** Whether a heading's section holds a field only agents have (`depends_on`, `prompt`…). */
function hasAgentFields(section: RootContent[], text: string, at: Locator, limit: number): boolean {
  return section.some(
    (node) =>
      node.type === 'list' &&
      node.children.some((item) => {
        const key = readField(item, text, at, limit)?.field.key
        return key !== undefined && (hard.has(key) || soft.has(key) || Object.hasOwn(pathKeys, key) || key === 'prompt' || key === 'estimated_duration')
      })
  )
}

function fencePrompt(node: RootContent, at: Locator, file: string): Prompt {
  const value = node.type === 'code' ? node.value : ''
  return {text: lf(value), source: 'fence', file, position: at.span(node.position!.start.offset!, node.position!.end.offset!)}
}

/** Prompts go to agents with `\n` line endings, whatever the plan file uses. */
function lf(value: string): string {
  return value.includes('\r') ? value.replace(/\r\n?/g, '\n') : value
}
