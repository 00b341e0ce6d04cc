import type {Plan} from '../plan/types.js'
import type {PlanStore} from '../store/plan-store.js'
import type {RowState} from '../store/table-state.js'
import {loggedAnswer} from './answer-log.js'
import {readAnswers} from './read-answers.js'
import {setAnswer} from './set-answer.js'
import {openQuestionsTitle} from './upsert-open-question.js'

/**
 * At a run's start: an open question of an agent waiting for input whose `**answer**:` is empty, though
 * `mdplan answer` answered that very question (its log says so), lost its answer to a save of an older
 * buffer (loaded before the answer, saved after it between runs). The answer is written back and used,
 * and the run says so. Returns the plan as it is now.
 */
export async function restoreAnswers(input: {store: PlanStore; file: string; rows: ReadonlyMap<string, RowState>; warn: (message: string) => void}): Promise<Plan> {
  const {store, file} = input
  if (![...input.rows.values()].some((row) => row.status === 'needs_input')) return store.plan
  const lost = readAnswers(store.plan)
    .filter((entry) => entry.answer === undefined && input.rows.get(entry.agent)?.status === 'needs_input')
    .map((entry) => ({entry, logged: loggedAnswer(file, entry)}))
    .filter((found) => found.logged !== undefined)
  if (lost.length === 0) return store.plan
  try {
    await store.editSection(openQuestionsTitle, (section, plan) => {
      let text = section ? plan.text.slice(section.section.start.offset, section.section.end.offset) : ''
      for (const {entry, logged} of lost) text = setAnswer(text, entry.agent, logged!.answer) ?? text
      return text
    })
  } catch (error) {
    input.warn(`could not write back the answers a save took away (${error instanceof Error ? error.message : String(error)})`)
    return store.plan
  }
  for (const {entry, logged} of lost) {
    input.warn(`${entry.agent}: the answer given with \`mdplan answer\` at ${logged!.time} (${JSON.stringify(logged!.answer)}) was no longer in ${file} (a save of an editor's buffer loaded before it?); it is written back and ${entry.agent} resumes with it. To have ${entry.agent} ask again instead, set its Status to pending`)
  }
  return store.plan
}
