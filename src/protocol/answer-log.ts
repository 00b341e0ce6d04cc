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
  let text: string
  try {
    text = readFileSync(answerLogFile(planFile), 'utf8')
  } catch {
    return undefined
  }
  let found: LoggedAnswer | undefined
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    try {
      const logged = JSON.parse(line) as LoggedAnswer
      if (logged.agent === entry.agent && logged.question === entry.question && logged.resumeState === entry.resumeState && typeof logged.answer === 'string') found = logged
    } catch {}
  }
  return found
}

/**
 * An agent asked a new question (mdplan wrote its entry): answers given to its earlier ones are spent,
 * and one to an identical question asked again must not be replayed (best effort, like the log).
 */
export function forgetAnswers(planFile: string, agent: string): void {
  const file = answerLogFile(planFile)
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return
  }
  const kept = text.split('\n').filter((line) => {
    if (line.trim() === '') return false
    try {
      return (JSON.parse(line) as LoggedAnswer).agent !== agent
    } catch {
      return false
    }
  })
  if (kept.length === text.split('\n').filter((line) => line.trim() !== '').length) return
  try {
    writeFileSync(`${file}.${process.pid}.tmp`, kept.map((line) => line + '\n').join(''))
    renameSync(`${file}.${process.pid}.tmp`, file)
  } catch {}
}
