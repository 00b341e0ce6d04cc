import {dirname, resolve} from 'node:path'
import {PlanStore} from '../store/plan-store.js'
import {readAnswers} from '../protocol/read-answers.js'
import {resolveAnswer} from '../protocol/resolve-answer.js'
import {setAnswer} from '../protocol/set-answer.js'
import {openQuestionsTitle} from '../protocol/upsert-open-question.js'
import {parseNestedResumeState} from './nested-resume-state.js'

/**
 * Write an answer into `agent`'s open question in `file`, and, when that
 * question came up from a child plan (its Resume State names the child plan
 * and agent), into the child's too, as deep as the nesting goes. The answer
 * text is resolved against each entry's options (`2` → the option's text)
 * once, at the top, so every layer records the same words. Returns the
 * files written, top first.
 */
export async function answerDown(file: string, agent: string, answer: string, options: {onlyIfUnanswered?: boolean} = {}): Promise<string[]> {
  const store = await PlanStore.open(file)
  try {
    const entry = readAnswers(store.plan).find((candidate) => candidate.agent === agent)
    if (!entry) return []
    const text = resolveAnswer(answer, entry.options)
    const written: string[] = []
    if (!(options.onlyIfUnanswered && entry.answer)) {
      await store.editSection(openQuestionsTitle, (section, plan) => {
        const current = section ? plan.text.slice(section.section.start.offset, section.section.end.offset) : ''
        return setAnswer(current, agent, text) ?? current
      })
      written.push(file)
    }
    const nested = parseNestedResumeState(entry.resumeState)
    if (nested) written.push(...(await answerDown(resolve(dirname(file), nested.plan), nested.agent, text, options)))
    return written
  } finally {
    store.close()
  }
}
