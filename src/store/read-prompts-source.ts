import fs from 'node:fs'
import type {PromptsSource} from '../plan/parse-plan.js'
import type {Plan} from '../plan/types.js'

/** The plan's prompts file (`prompts:` in its front matter), read once; undefined when it has none or it cannot be read (`loadPlan` reported that). */
export async function readPromptsSource(plan: Plan): Promise<PromptsSource | undefined> {
  if (!plan.promptsFile) return undefined
  try {
    return {file: plan.promptsFile.path, source: await fs.promises.readFile(plan.promptsFile.path, 'utf8')}
  } catch {
    return undefined
  }
}
