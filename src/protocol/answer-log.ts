import {appendFileSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'
import {planTarget} from '../store/plan-target.js'
import {makeDir} from '../util/make-dir.js'
import type {OpenQuestion} from './read-answers.js'

/** One answer `mdplan answer` wrote: the question it answers, told apart by its text and resume state. */
export interface LoggedAnswer {
  agent: string
  question: string
  resumeState: string
  answer: string
  time: string
}

/**
 * Where `mdplan answer` keeps what it wrote: `.mdplan/answers/<plan file>.jsonl`
 * beside the plan (beside its target when it is a symlink, like the journal).
 * An editor's older buffer saved after the answer (loaded before it) blanks the
 * answer in the file; the next run finds it here (`loggedAnswer`).
 */
export function answerLogFile(planFile: string): string {
  const target = planTarget(planFile)
  return join(dirname(target), '.mdplan', 'answers', `${basename(target)}.jsonl`)
}

/** Append an answer (best effort: a log that cannot be written costs only this safety net). */
export function recordAnswer(planFile: string, entry: OpenQuestion, answer: string, now = new Date()): void {
  const line: LoggedAnswer = {agent: entry.agent, question: entry.question, resumeState: entry.resumeState, answer, time: now.toISOString()}
  try {
    const file = answerLogFile(planFile)
    makeDir(dirname(file))
    appendFileSync(file, JSON.stringify(line) + '\n')
  } catch {}
}

/** The last answer written for this very question (same agent, text and resume state), if any. */
export function loggedAnswer(planFile: string, entry: OpenQuestion): LoggedAnswer | undefined {
  return (readLog(answerLogFile(planFile)) ?? [])
    .filter((logged) => logged.agent === entry.agent && logged.question === entry.question && logged.resumeState === entry.resumeState && typeof logged.answer === 'string')
    .at(-1)
}

/**
 * An agent asked a new question (mdplan wrote its entry): answers given to its earlier ones are spent,
 * and one to an identical question asked again must not be replayed (best effort, like the log).
 */
export function forgetAnswers(planFile: string, agent: string): void {
  const file = answerLogFile(planFile)
  const logged = readLog(file)
  if (!logged?.some((line) => line.agent === agent)) return
  try {
    writeFileSync(`${file}.${process.pid}.tmp`, logged.filter((line) => line.agent !== agent).map((line) => JSON.stringify(line) + '\n').join(''))
    renameSync(`${file}.${process.pid}.tmp`, file)
  } catch {}
}

/** The log's answers, oldest first (lines that do not parse, cut short by a crash, skipped); undefined when there is none. */
function readLog(file: string): LoggedAnswer[] | undefined {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
  const logged: LoggedAnswer[] = []
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    try {
      const value: unknown = JSON.parse(line)
      if (typeof value === 'object' && value !== null) logged.push(value as LoggedAnswer)
    } catch {}
  }
  return logged
}
