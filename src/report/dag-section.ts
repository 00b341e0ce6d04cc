import type {Plan, Section} from '../plan/types.js'
import {renderMermaid} from './render-mermaid.js'
import {upsertMermaidBlock} from './upsert-mermaid-block.js'

/**
 * The new `## DAG Visualization` section for `plan`: its Mermaid block redrawn
 * from the plan's current statuses, everything else in it kept. Shaped as an
 * editor for `store.editSection('DAG Visualization', dagSection)`, so the
 * executor can keep the picture current after every state write.
 */
export function dagSection(current: Section | undefined, plan: Plan): string {
  const text = current ? plan.text.slice(current.section.start.offset, current.section.end.offset) : undefined
  return upsertMermaidBlock(text, renderMermaid(plan), plan.eol)
}
