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
 * The two agent sections of one issue, as lines: `P<n>` writes the issue's
 * implementation plan, `E<n>` carries it out. The executing agent carries the
 * issue's id and title as fields (`issue`, `issue_title`): the run marks the
 * issue completed in the queue when it completes, and a `commit: true` run
 * commits its work as `feat(<id>): <title>`.
 */
export function issueAgents(input: IssueAgentsInput): string[] {
  const {issue, n, planDeps, execDeps, deps, notesFile} = input
  const title = oneLine(issue.title) || '(untitled)'
  const out: string[] = []
  out.push(`### P${n}: plan-${safeName(issue.id)}`)
  out.push(`- **depends_on**: [${planDeps.join(', ')}]`)
  out.push(`- **creates**: [\`${notesFile(issue)}\`]`)
  out.push(`- **description**: Plan issue ${issue.id}: ${title}`)
  out.push('- **prompt**: |')
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
  out.push(...indent([...planPrompt, ...issueText(issue)]), '')

  out.push(`### E${n}: exec-${safeName(issue.id)}`)
  out.push(`- **depends_on**: [${execDeps.join(', ')}]`)
  out.push(`- **description**: Implement issue ${issue.id}: ${title}`)
  out.push(`- **issue**: ${oneLine(issue.id)}`)
  out.push(`- **issue_title**: ${title}`)
  out.push('- **prompt**: |')
  const execPrompt = [
    `Implement issue ${issue.id}: ${title}`,
    '',
    `Follow the plan in \`${notesFile(issue)}\` (written by agent P${n}). If the code has moved on`,
    'since it was written, adapt the plan and say so in your final report. Verify the result as the plan says.'
  ]
  const requirements = Object.entries(issue.requirements)
  if (requirements.length > 0) {
    execPrompt.push('', 'Requirements from the queue:')
    for (const [key, value] of requirements) execPrompt.push(`- ${key.replace(/_/g, ' ')}: ${oneLine(value)}`)
  }
  out.push(...indent([...execPrompt, ...issueText(issue)]), '')
  return out
}

function issueText(issue: Issue): string[] {
  const lines = ['', '## The issue', '', `- id: ${issue.id}`, `- title: ${oneLine(issue.title)}`]
  if (issue.wave !== undefined) lines.push(`- wave: ${issue.wave}`)
  if (issue.dependsOn.length > 0) lines.push(`- depends on: ${issue.dependsOn.join(', ')}`)
  if (issue.context) lines.push('', ...issue.context.replace(/\r\n?/g, '\n').split('\n'))
  return lines
}

/** Four spaces: the prompt is an indented block, and its own headings stay inside it. */
function indent(lines: string[]): string[] {
  return lines.map((line) => (line.trim() === '' ? '' : `    ${line.replace(/\s+$/, '')}`))
}

export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

/** An issue id as a file and agent name: letters, digits, `.`, `_` and `-`. */
export function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|-+$/g, '') || 'issue'
}
