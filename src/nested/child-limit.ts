import {loadPlan} from '../plan/load-plan.js'
import {readWaitLines, parseWaitLine} from '../plan/wait-line.js'

/**
 * A child plan's run ended `limited` (exit 4): what is left of it can launch only after an account's usage
 * limit resets. When the first of the waits its table records ends (ms), so the parent waits for it too,
 * without spending the agent's attempt; undefined when the child's file says none.
 */
export async function childLimit(childFile: string): Promise<number | undefined> {
  const plan = await loadPlan(childFile)
  const state = plan.state
  if (!state) return undefined
  const after = plan.text.slice(state.table?.position.end.offset ?? state.heading.end.offset, state.section.end.offset)
  const ats = (readWaitLines(after.split(/\r?\n/))?.split('\n') ?? []).map((line) => parseWaitLine(line)!.at)
  return ats.length === 0 ? undefined : Math.min(...ats)
}
