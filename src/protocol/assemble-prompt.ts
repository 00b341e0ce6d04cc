import type {Agent, Plan, Section} from '../plan/types.js'
import {resolveAnswer} from './resolve-answer.js'

export interface AssemblePromptInput {
  plan: Plan
  agent: Agent
  /** A relaunch after a failed attempt. */
  retry?: {attempt: number; previousFailure: string; checkpoint?: string}
  /** Discoveries of the agents this one depends on. */
  discoveries?: ReadonlyArray<{agent: string; text: string}>
  /** The person's answer to this agent's question. */
  answer?: {question: string; resumeState: string; answer: string; options?: string[]}
  /** The note a person sent the agent's work back with (a review gate's rejection): given as an answer is. */
  review?: string
  /**
   * The prompt goes to the agent's existing session (the runner resumes it):
   * send only the follow-up, the session already holds the rest.
   */
  resuming?: boolean
  /** Resuming a session a previous mdplan run left running (it died or was interrupted). */
  resumeInterrupted?: boolean
}

/**
 * The prompt an agent gets, as hand-run plans expect: the `## Shared Contract`
 * section (with its heading, so the agent knows what it is reading) and the
 * `## Prompt Preamble` body, because agents cannot read the plan; then the
 * agent's prompt verbatim; then discoveries of its dependencies, the previous
 * attempt's failure and checkpoint, or the person's answer. With nothing to
 * add, the result is the agent's prompt, byte for byte.
 *
 * When resuming a session only the follow-up is sent: the answer (told to
 * resume with its state and continue where it left off) or, for an interrupted
 * run, a request to continue.
 */
export function assemblePrompt(input: AssemblePromptInput): string {
  const {plan, agent, retry, discoveries, answer, review, resuming, resumeInterrupted} = input
  if (answer && (resuming || resumeInterrupted)) return answerFollowUp(answer)
  if (review !== undefined && (resuming || resumeInterrupted)) return reviewFollowUp(review)
  if (resumeInterrupted) return interruptedFollowUp()

  const before: string[] = []
  const contract = section(plan, 'shared contract')
  if (contract) before.push(plan.text.slice(contract.section.start.offset, contract.section.end.offset).replace(/\s+$/, ''))
  const preamble = section(plan, 'prompt preamble')
  if (preamble && preamble.body.trim() !== '') before.push(preamble.body.replace(/^\s*\n/, '').replace(/\s+$/, ''))

  const after: string[] = []
  if (discoveries && discoveries.length > 0) {
    after.push(['## Discoveries from earlier agents', '', ...discoveries.map((d) => `- ${d.agent}: ${d.text}`)].join('\n'))
  }
  if (retry) {
    const lines = ['## Previous attempt', '', `Attempt ${retry.attempt - 1} failed: ${retry.previousFailure}`]
    if (retry.checkpoint) lines.push(`Checkpoint it reached: ${retry.checkpoint}`)
    lines.push(
      '',
      `This is attempt ${retry.attempt}. Work from the previous attempt may still be in the working directory: check it, continue from the checkpoint where you can, and fix what made it fail.`
    )
    after.push(lines.join('\n'))
  }
  if (answer) after.push(answerFollowUp(answer))
  if (review !== undefined) after.push(reviewFollowUp(review))

  const prompt = agent.prompt?.text ?? ''
  if (before.length === 0 && after.length === 0) return prompt
  return [...before, after.length > 0 ? prompt.replace(/\s+$/, '') : prompt, ...after].join('\n\n')
}

/** The follow-up that resumes a session with the person's answer. */
export function answerFollowUp(answer: {question: string; resumeState: string; answer: string; options?: string[]}): string {
  const fence = fenceFor(answer.resumeState)
  return [
    'Your question was answered.',
    '',
    `Question: ${answer.question}`,
    `Answer: ${resolveAnswer(answer.answer, answer.options)}`,
    '',
    'Resume State:',
    fence,
    answer.resumeState.replace(/\s+$/, ''),
    fence,
    '',
    "Resume the process with that state and the user's answer, and continue from where you left off. End with a RESULT line as before."
  ].join('\n')
}

/** The follow-up that sends an agent's work back with a person's review note. */
export function reviewFollowUp(note: string): string {
  return [
    'Your work was reviewed and sent back.',
    '',
    `Review: ${note === '' ? '(no note given)' : note}`,
    '',
    'Your earlier work is in the working directory. Change it as the review asks, and end with a RESULT line as before.'
  ].join('\n')
}

function interruptedFollowUp(): string {
  return 'The run that started you stopped before you finished. Continue from where you left off, and end with a RESULT line as before.'
}

function section(plan: Plan, title: string): Section | undefined {
  return plan.sections.find((candidate) => candidate.title.trim().toLowerCase() === title)
}

/** A backtick fence longer than any run of backticks in the text. */
export function fenceFor(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length))
  return '`'.repeat(longest + 1)
}
