import {readRegularFileSync} from '../util/read-regular-file.js'
import {dirname, resolve} from 'node:path'
import {parsePlan} from '../plan/parse-plan.js'
import {readAnswers} from '../protocol/read-answers.js'
import {parseNestedResumeState} from './nested-resume-state.js'

/**
 * The answer a person wrote straight into a child plan (or a grandchild) for
 * the question a parent agent passed up: the question's Resume State names
 * the child plan and agent; undefined while none of them is answered.
 */
export function answeredBelow(parentFile: string, resumeState: string): string | undefined {
  const nested = parseNestedResumeState(resumeState)
  if (!nested) return undefined
  const child = resolve(dirname(parentFile), nested.plan)
  let text: string
  try {
    text = readRegularFileSync(child).toString('utf8')
  } catch {
    return undefined
  }
  const entry = readAnswers(parsePlan(text.replace(/^\uFEFF/, ''), child)).find((candidate) => candidate.agent === nested.agent)
  if (!entry) return undefined
  return entry.answer ?? answeredBelow(child, entry.resumeState)
}
