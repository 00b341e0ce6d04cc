import {asData, oneLine} from './as-data.js'
import type {Issue} from './read-issues.js'

export interface IssueAgentsInput {
  issue: Issue
  /** The issue's number: its agents are `P<n>` and `E<n>`. */
  n: number
  /** Ids of the agents each of the two waits for. */
  planDeps: string[]
  execDeps: string[]
  /** The issues this one depends on that still have agents, for the planning prompt. */
  deps: Issue[]
  notesFile: (issue: Issue) => string
}

/**
 * The two agents of one issue: `P<n>` writes the issue's
 * implementation plan, `E<n>` carries it out. The executing agent carries the
 * issue's id and title as fields (`issue`, `issue_title`): the run marks the
 * issue completed in the queue when it completes, and a `commit: true` run
 * commits its work as `feat(<id>): <title>`.
 *
 * Every value from the queue lands as data: ids are plain words
 * (`issueIdPattern`, checked when the queue is read), one-line values are
 * joined onto one line, and the issue's Markdown goes only inside the
 * indented prompt blocks, where no line of it can start a heading, a field
 * or an agent of the plan (`asData`).
 */
export function issueAgents(input: IssueAgentsInput): IssueAgent[] {
  const {issue, n, planDeps, execDeps, deps, notesFile} = input
  const title = oneLine(issue.title) || '(untitled)'
  const planPrompt = [
    `Plan issue ${issue.id}: ${title}`,
    '',
    `Read the code this issue touches and write an implementation plan to \`${notesFile(issue)}\`:`,
    'the files to change, the steps in order, and how to verify the result.',
    'Do not change any other file: another agent implements your plan.'
  ]
  if (planDeps.length > 0) {
    planPrompt.push('', 'This issue builds on issues that may still be in progress; plan against what their plans describe:')
    for (const dep of deps) planPrompt.push(`- ${dep.id}: \`${notesFile(dep)}\``)
  }
  const execPrompt = [
    `Implement issue ${issue.id}: ${title}`,
    '',
    `Follow the plan in \`${notesFile(issue)}\` (written by agent P${n}). If the code has moved on`,
    'since it was written, adapt the plan and say so in your final report. Verify the result as the plan says.'
  ]
  const requirements = Object.entries(issue.requirements)
  if (requirements.length > 0) {
    execPrompt.push('', 'Requirements from the queue:')
    for (const [key, value] of requirements) execPrompt.push(`- ${oneLine(key.replace(/_/g, ' '))}: ${oneLine(value)}`)
  }
  return [
    {
      id: `P${n}`,
      name: `plan-${headingName(issue.id)}`,
      fields: [
        ['depends_on', `[${planDeps.join(', ')}]`],
        ['creates', `[\`${notesFile(issue)}\`]`],
        ['description', `Plan issue ${issue.id}: ${title}`]
      ],
      prompt: promptBlock([...planPrompt, ...issueText(issue)])
    },
    {
      id: `E${n}`,
      name: `exec-${headingName(issue.id)}`,
      fields: [
        ['depends_on', `[${execDeps.join(', ')}]`],
        ['description', `Implement issue ${issue.id}: ${title}`],
        ['issue', issue.id],
        ['issue_title', title]
      ],
      prompt: promptBlock([...execPrompt, ...issueText(issue)])
    }
  ]
}

/** One generated agent: its heading, its one-line fields in order, and its prompt as the plan will hold it. */
export interface IssueAgent {
  id: string
  name: string
  fields: Array<[string, string]>
  /** The prompt block's lines, de-indented, as the parser will read them back. */
  prompt: string[]
}

/** An agent's section, as lines (a blank line after it). */
export function renderIssueAgent(agent: IssueAgent): string[] {
  return [
    `### ${agent.id}: ${agent.name}`,
    ...agent.fields.map(([key, value]) => `- **${key}**: ${value}`),
    '- **prompt**: |',
    ...agent.prompt.map((line) => (line === '' ? '' : `    ${line}`)),
    ''
  ]
}

function issueText(issue: Issue): string[] {
  const lines = ['', '## The issue', '', `- id: ${issue.id}`, `- title: ${oneLine(issue.title)}`]
  if (issue.wave !== undefined) lines.push(`- wave: ${issue.wave}`)
  if (issue.dependsOn.length > 0) lines.push(`- depends on: ${issue.dependsOn.join(', ')}`)
  if (issue.context) lines.push('', ...asData(issue.context).split('\n'))
  return lines
}

/**
 * The prompt's lines as the block will hold them (`renderIssueAgent` indents
 * each by four spaces, so its own headings, lists and fences stay inside
 * it): trailing whitespace dropped, a blank line empty.
 */
function promptBlock(lines: string[]): string[] {
  return lines.map((line) => (line.trim() === '' ? '' : line.replace(/\s+$/, '')))
}

/** An issue id in an agent heading's name: no `_`, which pairs into emphasis there (`_a_` reads as `a`). */
function headingName(id: string): string {
  return safeName(id).replace(/_/g, '-')
}

/** An issue id as a file and agent name: letters, digits, `.`, `_` and `-`. */
export function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|-+$/g, '') || 'issue'
}
