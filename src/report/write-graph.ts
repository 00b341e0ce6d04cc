import {readFileSync, statSync} from 'node:fs'
import {loadPlan} from '../plan/load-plan.js'
import {atomicWrite} from '../store/atomic-write.js'
import {replaceSection} from '../store/replace-section.js'
import {dagSection} from './dag-section.js'
import {dagSectionTitle} from './upsert-mermaid-block.js'

export interface WriteGraphResult {
  /** Whether the file changed (false: the block was already current). */
  changed: boolean
  /** False when the plan changed under us (a running executor wrote it); nothing was written, try again. */
  written: boolean
}

/**
 * Write the Mermaid block under `## DAG Visualization` into the plan file.
 * Only that block changes; the write is atomic, and it is given up when the
 * file changed between reading and renaming, so a running executor's state
 * write is never lost.
 */
export async function writeGraph(file: string): Promise<WriteGraphResult> {
  const plan = await loadPlan(file)
  // The bytes the edit is based on: if they are not what was parsed, someone wrote in between.
  const before = readFileSync(file)
  if (before.toString('utf8').replace(/^\ufeff/, '') !== plan.text) return {changed: false, written: false}
  const section = plan.sections.find((s) => s.title.trim().toLowerCase() === dagSectionTitle.toLowerCase())
  const edit = replaceSection(plan, dagSectionTitle, dagSection(section, plan))
  if (edit.text === plan.text) return {changed: false, written: true}
  const data = Buffer.from((plan.bom ? '\ufeff' : '') + edit.text, 'utf8')
  const written = atomicWrite(file, data, {mode: statSync(file).mode & 0o777, beforeRename: () => readFileSync(file).equals(before)})
  return {changed: written, written}
}
