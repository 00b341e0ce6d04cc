import {resolve} from 'node:path'
import {PlanStore} from '../store/plan-store.js'
import {loadPlan} from '../plan/load-plan.js'
import {replaceSection} from '../store/replace-section.js'
import {dagSection} from './dag-section.js'
import {dagSectionTitle} from './upsert-mermaid-block.js'

export interface WriteGraphResult {
  /** Whether the file changed (false: the block was already current). */
  changed: boolean
}

/**
 * Write the Mermaid block under `## DAG Visualization` into the plan file,
 * through the plan store: only that block changes, atomically, and a running
 * executor's writes made meanwhile are kept.
 */
export async function writeGraph(file: string, options: {cwd?: string} = {}): Promise<WriteGraphResult> {
  // loadPlan first: a missing or unreadable plan is a PlanError with a clear message.
  const plan = await loadPlan(file, options)
  const current = plan.sections.find((section) => section.title.trim().toLowerCase() === dagSectionTitle.toLowerCase())
  if (replaceSection(plan, dagSectionTitle, dagSection(current, plan)).text === plan.text) return {changed: false}
  const store = await PlanStore.open(options.cwd ? resolve(options.cwd, file) : file)
  try {
    await store.editSection(dagSectionTitle, dagSection)
  } finally {
    store.close()
  }
  return {changed: true}
}
